// The control broker behind its TCP proxy (scripts/kafka/control-broker.ts) as a process of its own, for the browser
// journeys of a group of instances (playwright.ha.config.ts starts it before the instances): the proxy listens on
// <proxyPort>, and a small HTTP server on loopback <adminPort> lets a journey cut and restore the link
// (POST /cut, POST /restore; GET /ready answers once the broker does). SIGTERM stops the broker and removes its files.
// Run with: npx tsx scripts/testing/control-broker-child.ts <proxyPort> <adminPort>
import { createServer } from 'node:http'
import { startControlBroker } from '@/scripts/kafka/control-broker'

async function main(): Promise<void> {
  const [proxyPort, adminPort] = process.argv.slice(2).map(Number)
  if (!Number.isInteger(proxyPort) || !Number.isInteger(adminPort)) throw new Error('usage: control-broker-child.ts <proxyPort> <adminPort>')
  const broker = await startControlBroker({ proxyPort })
  const admin = createServer((request, response) => {
    const route = `${request.method} ${request.url}`
    if (route === 'POST /cut') broker.cut()
    else if (route === 'POST /restore') broker.restore()
    else if (route !== 'GET /ready') {
      response.writeHead(404).end()
      return
    }
    if (route !== 'GET /ready') console.log(`control broker: ${route}`)
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bootstrap: broker.bootstrap }))
  })
  await new Promise<void>((resolve) => admin.listen(adminPort, '127.0.0.1', resolve))
  console.log(`control broker at ${broker.bootstrap}, its link cut and restored at http://127.0.0.1:${adminPort}`)
  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      admin.close()
      void broker.stop().finally(() => process.exit(0))
    })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
