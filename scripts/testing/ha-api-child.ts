// One Mirrorboard instance of a group sharing the work over the control cluster (issue #40), serving its API on
// loopback, for the tests that send requests to several instances (server/ha/ha-forwarding.integration.test.ts). It
// is the test runtime (server/testing/test-runtime.ts: real registry, engine, auth, audit, the control cluster's
// group) behind a plain node:http server that hands each /api/v1 request to the route handler the endpoint catalog
// names (app/api/v1/.../route.ts), as Next.js would, without a `next build` per instance. Configuration from the
// environment as a server's (MIRRORBOARD_CONTROL_BOOTSTRAP, MIRRORBOARD_INSTANCE_ID, MIRRORBOARD_SECRET_KEY,
// MIRRORBOARD_ADVERTISED_URL ...); it prints `listening <url>` once it answers.
// MIRRORBOARD_TEST_HOLD_STOPPING=<partition>:<beforeAction|afterAction>:<step>,... holds each such partition's STOPPING
// there for good (its action done or not, its step not recorded), so a test can kill the instance mid-failover
// (server/ha/ha-failover-handover.integration.test.ts).
// MIRRORBOARD_TEST_ZOMBIE_WRITES=1: once continued after a SIGSTOP (SIGCONT), the instance writes what it held of the
// mirror whose STOPPING it holds — the operation record as its own file keeps it, the mirror's definition record — as a
// paused owner does with the writes it had in hand when it wakes up; it prints `zombie write <what> <outcome>`
// (server/ha/ha-zombie-fencing.integration.test.ts).
// SIGTERM closes the runtime first, as a server's does (server/ha/ha-reads.integration.test.ts).
// Run with: node --conditions=react-server --import tsx scripts/testing/ha-api-child.ts <dataDir> <port>
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { SERVED_ENDPOINTS, type Endpoint } from '@/lib/api/endpoints'
import { readHaConfig } from '@/server/ha/ha-config'
import { openTestRuntime } from '@/server/testing/test-runtime'
import type { Runtime } from '@/server/runtime'
import { StoredOperation } from '@/server/engine/operations/operation-store'
import type { MirrorDefinition } from '@/server/engine/types'

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>

const root = path.resolve(import.meta.dirname, '../..')

/** Each endpoint's path template as a pattern with named groups, e.g. /api/v1/mirrors/(?<mirror>[^/]+). */
const routes = SERVED_ENDPOINTS.map((endpoint: Endpoint) => ({
  endpoint,
  pattern: new RegExp(`^${endpoint.path.replace(/\{([^}]+)\}/g, '(?<$1>[^/]+)')}$`),
  file: path.join(root, 'app', endpoint.path.replace(/\{([^}]+)\}/g, '[$1]'), 'route.ts'),
}))

async function dispatch(incoming: IncomingMessage, outgoing: ServerResponse, origin: string): Promise<void> {
  const url = new URL(incoming.url ?? '/', origin)
  const found = routes.find(({ endpoint, pattern }) => endpoint.method === incoming.method && pattern.test(url.pathname))
  if (!found) {
    outgoing.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'NOT_FOUND', message: `no route ${incoming.method} ${url.pathname}` } }))
    return
  }
  const params = Object.fromEntries(Object.entries(found.pattern.exec(url.pathname)?.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]))
  const module = (await import(pathToFileURL(found.file).href)) as Record<string, Handler>
  const handler = module[found.endpoint.method]!
  const headers = new Headers()
  for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') headers.set(name, value)
  const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD'
  // The request ends when the client goes away, as Next.js signals it (an event stream's subscription then ends).
  const gone = new AbortController()
  outgoing.on('close', () => gone.abort())
  const request = new Request(url, { method: incoming.method, headers, signal: gone.signal, ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream, duplex: 'half' } : {}) } as RequestInit)
  const response = await handler(request, { params: Promise.resolve(params) })
  outgoing.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body === null) {
    outgoing.end()
    return
  }
  // Streamed as it comes (GET /events is a stream that does not end).
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (gone.signal.aborted) break
    outgoing.write(chunk)
  }
  outgoing.end()
}

async function main() {
  const [dataDir, port] = process.argv.slice(2)
  if (!dataDir || !port) throw new Error('usage: ha-api-child <dataDir> <port>')
  process.env.MIRRORBOARD_DATA_DIR = dataDir
  const ha = readHaConfig(process.env)
  if (!ha) throw new Error('MIRRORBOARD_CONTROL_BOOTSTRAP is not set')
  const holds = new Set((process.env.MIRRORBOARD_TEST_HOLD_STOPPING ?? '').split(',').filter((hold) => hold !== ''))
  let runtime: Runtime | null = null
  /** The mirror whose STOPPING is held, as this instance knew it then (what a zombie writes when it wakes up). */
  let held: MirrorDefinition | null = null
  runtime = await openTestRuntime(dataDir, {
    demo: false,
    ha,
    onStoppingAction: (phase, step, { topic, partition }) => {
      if (!holds.has(`${partition}:${phase}:${step}`)) return
      held ??= runtime?.engine.listMirrors().find((mirror) => mirror.topics.includes(topic)) ?? null
      process.stdout.write(`holding ${partition} ${phase} ${step}\n`)
      return new Promise<void>(() => {})
    },
  })
  if (process.env.MIRRORBOARD_TEST_ZOMBIE_WRITES === '1') process.on('SIGCONT', () => void zombieWrites(runtime, held, dataDir))
  // As a server stops (server/runtime.ts): the runtime closes — the instance leaves the group and removes its status.
  process.once('SIGTERM', () => void runtime?.close().finally(() => process.exit(0)))
  const origin = `http://127.0.0.1:${port}`
  const server = createServer((incoming, outgoing) => {
    dispatch(incoming, outgoing, origin).catch((error: unknown) => {
      console.error(error)
      if (!outgoing.headersSent) outgoing.writeHead(500)
      outgoing.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(Number(port), '127.0.0.1', resolve))
  process.stdout.write(`listening ${origin}\n`)
}

/** The writes a paused owner had in hand, made as it wakes up (before it notices it lost the mirror). */
async function zombieWrites(runtime: Runtime | null, mirror: MirrorDefinition | null, dataDir: string): Promise<void> {
  if (runtime === null || mirror === null) return
  const outcome = (what: string) => (write: Promise<void>) =>
    write.then(
      () => process.stdout.write(`zombie write ${what} written\n`),
      (error: unknown) => process.stdout.write(`zombie write ${what} refused ${(error as { code?: string }).code ?? String(error)}\n`),
    )
  // Read now, before anything of the wake-up runs: this instance's own last record of each operation of the mirror.
  const dir = path.join(dataDir, 'operations')
  const records = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => StoredOperation.parse(JSON.parse(readFileSync(path.join(dir, name), 'utf8'))))
    .filter((record) => record.mirror === mirror.name)
  const writes = records.map((record) => outcome(`operation ${record.id}`)(runtime.ha!.operations!.save(record)))
  const host = runtime.clusters.ports(mirror.destinationCluster).host
  writes.push(outcome(`state mirror/${mirror.name}`)(host.appendMirrorState([{ key: `mirror/${mirror.name}`, value: JSON.stringify(mirror) }])))
  await Promise.all(writes)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
