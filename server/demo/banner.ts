import 'server-only'
import type { DemoStatus } from '@/lib/api/demo'

/** The server's two bearer tokens (server/http/auth.ts): the banner prints both, the one-click sign-in uses the operator's. */
export interface DemoTokens {
  operator: string
  viewer: string
}

/**
 * The startup banner of `npm run demo`: where to go and how to sign in. Printed on every start (not only
 * when tokens are generated): the person who ran the demo is the one reading this terminal.
 */
export function formatBanner(input: { url: string; tokens: DemoTokens; status: DemoStatus }): string {
  const { url, tokens, status } = input
  const lines = [
    '',
    '==> Mirrorboard demo',
    `    open       ${url}   (control room: ${url}/demo; on this machine it signs you in as operator with one click)`,
    `    operator   ${tokens.operator}`,
    `    viewer     ${tokens.viewer}`,
    `    mirror     ${status.mirror}: ${status.sourceCluster} → ${status.destinationCluster} (${status.topics.join(', ')})`,
  ]
  if (status.status === 'failed') lines.push(`    NOT READY  the demo clusters could not be set up: ${status.error}`)
  return `${lines.join('\n')}\n\n`
}
