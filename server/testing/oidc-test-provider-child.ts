import 'server-only'
import { OidcTestProvider } from './oidc-test-provider'

/**
 * @internal The test identity provider (`oidc-provider`) as a process of its own, for Playwright's webServer (playwright.oidc.config.ts).
 * Run with: node --conditions=react-server --import tsx server/testing/oidc-test-provider-child.ts <port> <clientId> <clientSecret> <appUrl>
 */
async function main() {
  const [port, clientId, clientSecret, appUrl] = process.argv.slice(2)
  if (!port || !clientId || !clientSecret || !appUrl) throw new Error('usage: oidc-test-provider-child <port> <clientId> <clientSecret> <appUrl>')
  const provider = new OidcTestProvider({ port: Number(port), clientId, clientSecret, redirectUris: [`${appUrl}/api/v1/auth/oidc/callback`] })
  const issuer = await provider.start()
  process.stdout.write(`test identity provider at ${issuer}\n`)
  const stop = () => void provider.stop().then(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
