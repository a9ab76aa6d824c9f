// Over 400 lines on purpose: one benchmark suite (server start, seeding, partition list, SSE) whose phases share the server it starts.
// HTTP API benchmarks (issue: HTTP API), against the production server (server/main.ts) as clients see it:
// the partition list of a 10,000-partition mirror against GET /health in the same run, and the live event
// stream fanned out to 50 clients while a producer writes to the mirrored source.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import http from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import zlib from 'node:zlib'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import type { BenchResult } from './result'

const ROOT = path.resolve(__dirname, '..', '..')
export const OPERATOR_TOKEN = 'bench-operator-token'
export const VIEWER_TOKEN = 'bench-viewer-token'

/** 10 topics × 1,000 partitions (the API caps a topic at 1,000 partitions). */
const MAX_TOPICS = 10
export const PARTITIONS_PER_TOPIC = 1000
const LATENCY_REQUESTS = 200
const WARMUP_REQUESTS = 20
const SSE_CLIENTS = 50
const SSE_WINDOW_MS = 10_000
/** The producer's pace during the fan-out window: one POST of RECORDS_PER_POST records every PRODUCE_EVERY_MS. */
const PRODUCE_EVERY_MS = 50
const RECORDS_PER_POST = 10
const MIRRORING_TIMEOUT_MS = 15 * 60_000
const PAUSE_TIMEOUT_MS = 120_000

export function hasProductionBuild(): boolean {
  return existsSync(path.join(ROOT, '.next', 'BUILD_ID'))
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) throw new RangeError('percentile of no values')
  const sorted = [...values].sort((a, b) => a - b)
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index]!
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

interface Server {
  base: string
  /** The server's last log lines reporting errors, for a failure's message. */
  errors(): string
  close(): Promise<void>
}

/** `nodeArgs`: flags for the server's Node, e.g. `--cpu-prof` when looking into a figure. */
export async function startServer(options: { nodeArgs?: string[] } = {}): Promise<Server> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-api-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const output: string[] = []
  // The server runs with this machine's own open-files limit: 20,000 partition logs fit in it because idle
  // logs give their descriptors back (server/storage/descriptor-budget.ts).
  const next = [process.execPath, ...(options.nodeArgs ?? []), '--import', 'tsx', path.join(ROOT, 'server', 'main.ts'), '-H', '127.0.0.1', '-p', String(port)]
  const command = 'exec "$@"'
  // Its own process group, so stopping it stops anything it started.
  const child: ChildProcess = spawn('/bin/sh', ['-c', command, 'sh', ...next], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      NEXT_TELEMETRY_DISABLED: '1',
      MIRRORBOARD_DATA_DIR: dataDir,
      MIRRORBOARD_OPERATOR_TOKEN: OPERATOR_TOKEN,
      MIRRORBOARD_VIEWER_TOKEN: VIEWER_TOKEN,
    },
  })
  // Keep only the tail, and the error lines apart: the engine logs a line per partition transition.
  const errors: string[] = []
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    output.push(text)
    if (output.length > 200) output.splice(0, output.length - 200)
    for (const line of text.split('\n')) if (/"level":"(error|warn)"|Error/.test(line)) errors.push(line.slice(0, 2000))
    if (errors.length > 20) errors.splice(0, errors.length - 20)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  let exited = false
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())))

  // Interrupted (Ctrl-C): the server and its data dir go with this process.
  const onSignal = () => {
    if (!exited && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
    process.exit(130)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const close = async () => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    if (!exited && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM')
      // Closing 20,000 partition logs takes a while; past 30 s it is stuck.
      const stopped = await Promise.race([exit.then(() => true), sleep(30_000).then(() => false)])
      if (!stopped) process.kill(-child.pid, 'SIGKILL')
      await exit
    }
    await rm(dataDir, { recursive: true, force: true })
  }

  const deadline = Date.now() + 60_000
  for (;;) {
    if (exited) throw new Error(`the server exited:\n${output.join('')}`)
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) break
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await close()
      throw new Error(`the server did not answer within 60 s:\n${output.join('')}`)
    }
    await sleep(200)
  }
  return { base, close, errors: () => errors.join('\n') }
}

/**
 * One API call over node:http rather than fetch: creating a mirror of thousands of partitions answers after
 * minutes, past fetch's fixed 300 s wait for response headers.
 */
export function call(base: string, method: string, pathname: string, body?: unknown): Promise<unknown> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${pathname}`,
      {
        method,
        headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': payload.length }) },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', reject)
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          const status = response.statusCode ?? 0
          if (status < 200 || status >= 300) reject(new Error(`${method} ${pathname} → ${status} ${text.slice(0, 500)}`))
          else resolve(text === '' ? null : (JSON.parse(text) as unknown))
        })
      },
    )
    request.on('error', reject)
    request.end(payload)
  })
}

export async function setUpMirror(base: string, topicCount: number): Promise<{ topics: string[]; setupMs: number }> {
  const started = performance.now()
  await call(base, 'POST', '/api/v1/clusters', { name: 'source', kind: 'embedded', brokers: 1 })
  await call(base, 'POST', '/api/v1/clusters', { name: 'destination', kind: 'embedded', brokers: 1 })
  const topics = Array.from({ length: topicCount }, (_, i) => `orders-${i}`)
  for (const topic of topics) await call(base, 'POST', '/api/v1/clusters/source/topics', { name: topic, partitions: PARTITIONS_PER_TOPIC })
  await call(base, 'POST', '/api/v1/mirrors', { name: 'bench', sourceCluster: 'source', destinationCluster: 'destination', topics })
  await waitForState(base, 'MIRRORING', topicCount * PARTITIONS_PER_TOPIC)
  return { topics, setupMs: performance.now() - started }
}

async function waitForState(base: string, state: string, count: number, timeoutMs = MIRRORING_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const mirror = (await call(base, 'GET', '/api/v1/mirrors/bench')) as { partitionsByState: Record<string, number> }
    if ((mirror.partitionsByState[state] ?? 0) === count) return
    if (Date.now() > deadline) throw new Error(`mirror partitions not all ${state} after ${timeoutMs} ms: ${JSON.stringify(mirror.partitionsByState)}`)
    await sleep(500)
  }
}

/** The partition list with the engine idle (every partition PAUSED, nothing fetched): the route's own cost. */
async function pausedLatencies(base: string, topics: string[]): Promise<number[] | string> {
  try {
    // A topic per request: the state records of a whole 8,000-partition pause were once written as one
    // batch past the destination's message size limit, and the pause did not take.
    for (const topic of topics) await call(base, 'POST', '/api/v1/mirrors/bench/topics/pause', { topics: [topic] })
    await waitForState(base, 'PAUSED', topics.length * PARTITIONS_PER_TOPIC, PAUSE_TIMEOUT_MS)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  return (await latencies(`${base}/api/v1/mirrors/bench/partitions`, LATENCY_REQUESTS)).ms
}

type Client = 'http' | 'fetch'

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 })

/**
 * One GET the way a browser does it: keep-alive, Chromium's `Accept-Encoding`, the body decoded by native
 * zlib as it arrives. Resolves with the decoded size once the whole body is decoded.
 */
function leanGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: keepAlive, headers: { ...headers, 'Accept-Encoding': 'gzip, deflate, br, zstd' } }, (response) => {
      if ((response.statusCode ?? 0) !== 200) {
        response.resume()
        return reject(new Error(`GET ${url} → ${response.statusCode}`))
      }
      const encoding = response.headers['content-encoding']
      const body =
        encoding === 'br' ? response.pipe(zlib.createBrotliDecompress()) : encoding === 'gzip' ? response.pipe(zlib.createGunzip()) : encoding === 'deflate' ? response.pipe(zlib.createInflate()) : response
      const chunks: Buffer[] = []
      body.on('data', (chunk: Buffer) => chunks.push(chunk))
      body.on('error', reject)
      body.on('end', () => resolve(Buffer.concat(chunks).byteLength))
    })
    request.on('error', reject)
  })
}

async function fetchGet(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { headers })
  const body = await response.arrayBuffer()
  if (!response.ok) throw new Error(`GET ${url} → ${response.status}`)
  return body.byteLength
}

/**
 * Sequential GETs (one client, as a dashboard refreshing): per-request time until the whole body is read and
 * decoded. `http` is a lean client (node:http + zlib, as a browser decodes natively); `fetch` is Node's fetch,
 * whose stream machinery adds ~30 ms of client time to a 4.6 MB body on this 2-core machine, shown alongside.
 */
async function latencies(url: string, count: number, client: Client = 'http'): Promise<{ ms: number[]; bytes: number }> {
  const headers = { Authorization: `Bearer ${VIEWER_TOKEN}` }
  const get = client === 'http' ? leanGet : fetchGet
  let bytes = 0
  for (let i = 0; i < WARMUP_REQUESTS; i++) await get(url, headers)
  const ms: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    bytes = await get(url, headers)
    ms.push(performance.now() - started)
  }
  return { ms, bytes }
}

interface ClientStats {
  events: number
  bytes: number
  /** Receipt time minus the event's own `at`, for events that carry one. */
  delaysMs: number[]
  byType: Map<string, number>
}

/**
 * One SSE client: reads the stream, splits events at blank lines and takes the receipt time of each. Only
 * the head of `data` is looked at for the event's `at`: parsing every 1 MB lag event in 50 clients would
 * make this process, not the server, the bottleneck on 2 cores.
 */
function openClient(base: string, signal: AbortSignal, measuring: () => boolean): { stats: ClientStats; done: Promise<void>; connected: Promise<void> } {
  const stats: ClientStats = { events: 0, bytes: 0, delaysMs: [], byType: new Map() }
  let connectedResolve: () => void = () => {}
  const connected = new Promise<void>((resolve) => (connectedResolve = resolve))
  const done = (async () => {
    const response = await fetch(`${base}/api/v1/events`, { headers: { Authorization: `Bearer ${VIEWER_TOKEN}`, Accept: 'text/event-stream' }, signal })
    if (!response.ok || !response.body) throw new Error(`GET /api/v1/events → ${response.status}`)
    connectedResolve()
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for (;;) {
        const { done: ended, value } = await reader.read()
        if (ended) break
        const receivedAt = Date.now()
        buffer += decoder.decode(value, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (!measuring()) continue
          const type = /^event: (.+)$/m.exec(block)?.[1]
          if (type === undefined) continue
          stats.events += 1
          stats.bytes += block.length
          stats.byType.set(type, (stats.byType.get(type) ?? 0) + 1)
          const dataStart = block.indexOf('\ndata: ')
          const at = /"at":(\d{13})/.exec(block.slice(dataStart, dataStart + 400))
          if (at) stats.delaysMs.push(receivedAt - Number(at[1]))
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error
    }
  })()
  return { stats, done, connected }
}

async function fanOut(base: string, topics: string[]): Promise<{ perClient: number[]; delaysMs: number[]; bytesPerClientPerSecond: number; byType: Record<string, number>; produced: number }> {
  const controller = new AbortController()
  let measuring = false
  const clients = Array.from({ length: SSE_CLIENTS }, () => openClient(base, controller.signal, () => measuring))
  await Promise.all(clients.map((client) => client.connected))

  let produced = 0
  let producing = true
  const producer = (async () => {
    for (let i = 0; producing; i++) {
      const topic = topics[i % topics.length]!
      const next = performance.now() + PRODUCE_EVERY_MS
      await call(base, 'POST', `/api/v1/clusters/source/topics/${topic}/records`, {
        partition: (i * 7) % PARTITIONS_PER_TOPIC,
        records: Array.from({ length: RECORDS_PER_POST }, (_, r) => ({ key: `k${r}`, value: `value ${i}-${r}` })),
      })
      produced += RECORDS_PER_POST
      await sleep(Math.max(0, next - performance.now()))
    }
  })()

  // A second of traffic first, so the window starts in steady state.
  await sleep(1000)
  measuring = true
  const started = performance.now()
  await sleep(SSE_WINDOW_MS)
  measuring = false
  const seconds = (performance.now() - started) / 1000
  producing = false
  await producer
  controller.abort()
  await Promise.allSettled(clients.map((client) => client.done))

  const byType: Record<string, number> = {}
  for (const { stats } of clients) for (const [type, count] of stats.byType) byType[type] = (byType[type] ?? 0) + count / SSE_CLIENTS / seconds
  return {
    perClient: clients.map(({ stats }) => stats.events / seconds),
    delaysMs: clients.flatMap(({ stats }) => stats.delaysMs),
    bytesPerClientPerSecond: clients.reduce((sum, { stats }) => sum + stats.bytes, 0) / SSE_CLIENTS / seconds,
    byType,
    produced,
  }
}

export async function benchApi(): Promise<BenchResult[]> {
  if (!hasProductionBuild()) throw new Error('the HTTP API benchmark needs the production build (.next/BUILD_ID is missing): run `npx next build` first')
  const server = await startServer()
  try {
    // The floor: the cheapest route while the server has nothing else to do.
    const idle = await latencies(`${server.base}/api/v1/health`, LATENCY_REQUESTS)
    const topicCount = MAX_TOPICS
    const mirrored = (topicCount * PARTITIONS_PER_TOPIC).toLocaleString('en-US')
    const { topics, setupMs } = await setUpMirror(server.base, topicCount)
    const health = await latencies(`${server.base}/api/v1/health`, LATENCY_REQUESTS)
    const partitions = await latencies(`${server.base}/api/v1/mirrors/bench/partitions`, LATENCY_REQUESTS)
    const partitionsByFetch = await latencies(`${server.base}/api/v1/mirrors/bench/partitions`, LATENCY_REQUESTS, 'fetch')
    const fan = await fanOut(server.base, topics)
    const paused = await pausedLatencies(server.base, topics)
    if (typeof paused === 'string') console.log(`  (no figures with every partition PAUSED: ${paused}; the server's last error: ${server.errors().split('\n').at(-1) ?? 'none'})`)
    const typeMix = Object.entries(fan.byType)
      .map(([type, rate]) => `${type} ${rate.toFixed(1)}/s`)
      .join(', ')
    console.log(
      `  (setup: ${topicCount} × 1,000-partition topics mirrored in ${(setupMs / 1000).toFixed(1)} s; partition list ${(partitions.bytes / 1e6).toFixed(1)} MB; ` +
        `fan-out: ${fan.produced} records produced, per client ${typeMix}, ${(fan.bytesPerClientPerSecond / 1e6).toFixed(2)} MB/s)`,
    )
    const p50 = percentile(partitions.ms, 50)
    const p99 = percentile(partitions.ms, 99)
    const healthP50 = percentile(health.ms, 50)
    const healthP99 = percentile(health.ms, 99)
    return [
      { name: `GET mirror partitions (${mirrored}) p50`, value: p50, unit: 'ms', baseline: { name: 'GET /health p50', value: healthP50 }, ratio: p50 / healthP50 },
      { name: `GET mirror partitions (${mirrored}) p99`, value: p99, unit: 'ms', baseline: { name: 'GET /health p99', value: healthP99 }, ratio: p99 / healthP99, goal: '< 100 ms' },
      { name: `GET mirror partitions (${mirrored}) p50, Node fetch client`, value: percentile(partitionsByFetch.ms, 50), unit: 'ms' },
      { name: `GET mirror partitions (${mirrored}) p99, Node fetch client`, value: percentile(partitionsByFetch.ms, 99), unit: 'ms' },
      ...(typeof paused === 'string'
        ? []
        : [
            { name: `GET mirror partitions (${mirrored}) p50, all PAUSED`, value: percentile(paused, 50), unit: 'ms' },
            { name: `GET mirror partitions (${mirrored}) p99, all PAUSED`, value: percentile(paused, 99), unit: 'ms', goal: '< 100 ms' },
          ]),
      {
        name: `GET /health p99 while mirroring ${mirrored}`,
        value: healthP99,
        unit: 'ms',
        baseline: { name: 'idle server', value: percentile(idle.ms, 99) },
        ratio: healthP99 / percentile(idle.ms, 99),
      },
      { name: `SSE events per client (${SSE_CLIENTS} clients, median)`, value: percentile(fan.perClient, 50), unit: 'events/s', baseline: { name: 'slowest client', value: Math.min(...fan.perClient) } },
      { name: 'SSE delivery delay p50 (event `at` → client)', value: percentile(fan.delaysMs, 50), unit: 'ms' },
      { name: 'SSE delivery delay p99 (event `at` → client)', value: percentile(fan.delaysMs, 99), unit: 'ms' },
    ]
  } catch (error) {
    throw new Error(`HTTP API benchmark failed; the server's last errors:\n${server.errors()}`, { cause: error })
  } finally {
    await server.close()
  }
}
