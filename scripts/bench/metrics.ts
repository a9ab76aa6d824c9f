// `npm run bench -- metrics`: scrapes of GET /api/metrics with a mirror of 10,000 partitions between two embedded
// clusters, wired as the server wires them (the cluster registry's gauges of both clusters, the engine's mirror
// families, prom-client's default metrics), against baselines measured in the same run, scrape after scrape in
// turn: prom-client's registry writing the same collection (how /api/metrics wrote it before exposition.ts), the
// JSON of GET /mirrors/{m}/partitions for the same mirror, and the event loop with no scrape at all (the engine's
// own work). Then the scrape without the clusters' per-partition gauges (MIRRORBOARD_METRICS_CLUSTER_PARTITIONS=0).
// Every scrape's text is checked with promtool (Debian's prometheus) and against prom-client's series.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { gzipSync } from 'node:zlib'
import { ClusterRegistry } from '@/server/cluster/registry'
import { mirrorMetricsCollector } from '@/server/engine/mirror-metrics'
import { EventHub } from '@/server/http/events'
import { logger, type Logger } from '@/server/observability/logger'
import { MetricsRegistry } from '@/server/observability/metrics'
import { promClientExposition } from '@/server/observability/testing/prom-client-exposition'
import { promtoolCheckMetrics } from '@/server/observability/testing/promtool'
import { createEngine } from '@/server/runtime'
import { median, type BenchResult } from './result'

const TOPICS = 10
const PARTITIONS = Number(process.env.BENCH_METRICS_PARTITIONS ?? 10_000)
const SCRAPES = Number(process.env.BENCH_METRICS_SCRAPES ?? 15)

/** Warnings and errors only: 10,000 partitions starting write a line each at info. */
function quietLogger(): Logger {
  const log = logger.child({ module: 'bench' })
  const quiet: Logger = { debug: () => {}, info: () => {}, warn: log.warn, error: log.error, child: () => quiet }
  return quiet
}

interface Measured<T> {
  ms: number
  /** The longest the event loop waited for its turn while `run` ran. */
  stallMs: number
  value: T
}

async function measured<T>(run: () => Promise<T> | T): Promise<Measured<T>> {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const started = performance.now()
  const value = await run()
  const ms = performance.now() - started
  // The delay monitor records a stall when its next timer runs late: give it that turn.
  await new Promise((resolve) => setTimeout(resolve, 20))
  delay.disable()
  return { ms, stallMs: delay.max / 1e6, value }
}

function seriesOf(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'))
}

/** A series line without its value, and without prom-client's process metrics (each writer reads them at its own moment). */
function seriesKeys(text: string): string[] {
  return seriesOf(text)
    .filter((line) => !/^(process_|nodejs_)/.test(line))
    .map((line) => line.slice(0, line.lastIndexOf(' ')))
    .sort()
}

function checked(what: string, text: string): void {
  const verdict = promtoolCheckMetrics(text)
  if (!verdict.valid) throw new Error(`promtool check metrics refused the ${what} (status ${verdict.status}): ${verdict.output.slice(0, 5).join('; ')}`)
  console.log(`promtool check metrics, ${what}: valid (${seriesOf(text).length.toLocaleString('en-US')} series; lint notes only on prom-client's own names: ${verdict.output.length})`)
}

export async function benchMetrics(): Promise<BenchResult[]> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-metrics-'))
  const quiet = quietLogger()
  const clusters = await ClusterRegistry.open({ dataDir, log: quiet })
  const metrics = new MetricsRegistry(undefined, { defaultMetrics: true })
  metrics.register('clusters', () => clusters.collectMetrics())
  const { engine, splitBrain } = await createEngine({ clusters, events: new EventHub(), metrics, log: quiet, dataDir })
  // The same server with MIRRORBOARD_METRICS_CLUSTER_PARTITIONS=0.
  const lean = new MetricsRegistry(undefined, { defaultMetrics: true })
  lean.register('clusters', () => clusters.collectMetrics({ partitions: false }))
  lean.register('engine', mirrorMetricsCollector(engine))
  try {
    for (const name of ['a', 'b']) await clusters.create({ name, kind: 'embedded', brokers: 1 })
    const topics = Array.from({ length: TOPICS }, (_, i) => `wide-${i}`)
    for (const name of topics) await clusters.embedded('a').createTopic({ name, partitions: PARTITIONS / TOPICS, replicationFactor: 1 })
    await engine.createMirror({ name: 'wide', sourceCluster: 'a', destinationCluster: 'b', topics })
    const deadline = Date.now() + 120_000
    while (engine.mirrorSummary('wide').partitionsByState.MIRRORING !== PARTITIONS || engine.mirrorSummary('wide').maxOffsetLag === null) {
      if (Date.now() > deadline) throw new Error(`not mirroring: ${JSON.stringify(engine.mirrorSummary('wide').partitionsByState)}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const ours: Measured<string>[] = []
    const promClient: Measured<string>[] = []
    const json: Measured<string>[] = []
    const idle: Measured<void>[] = []
    const leaner: Measured<string>[] = []
    for (let i = 0; i < SCRAPES; i++) {
      ours.push(await measured(() => metrics.render()))
      promClient.push(await measured(async () => promClientExposition(metrics.registry, await metrics.collect())))
      json.push(await measured(() => JSON.stringify({ partitions: engine.partitions('wide') })))
      idle.push(await measured(() => new Promise<void>((resolve) => setTimeout(resolve, ours.at(-1)!.ms))))
      leaner.push(await measured(() => lean.render()))
    }
    const text = ours.at(-1)!.value
    checked('scrape', text)
    checked('scrape without the clusters’ per-partition gauges', leaner.at(-1)!.value)
    const [oursKeys, promClientKeys] = [seriesKeys(text), seriesKeys(promClient.at(-1)!.value)]
    if (oursKeys.join('\n') !== promClientKeys.join('\n')) throw new Error(`the scrape's series differ from prom-client's (${oursKeys.length} against ${promClientKeys.length})`)
    console.log(`same ${oursKeys.length.toLocaleString('en-US')} series as prom-client's writer (process and Node.js metrics aside)`)

    const size = PARTITIONS.toLocaleString('en-US')
    const ms = (runs: Measured<unknown>[]) => median(runs.map((run) => run.ms))
    const longest = (runs: Measured<unknown>[]) => Math.max(...runs.map((run) => run.stallMs))
    // On a shared machine the longest stall of all is often the OS's doing (the idle line shows how much): the
    // median over runs of each run's longest stall says what a scrape usually costs the event loop.
    const typical = (runs: Measured<unknown>[]) => median(runs.map((run) => run.stallMs))
    const bytes = Buffer.byteLength(text)
    const jsonBytes = Buffer.byteLength(json.at(-1)!.value)
    const leanBytes = Buffer.byteLength(leaner.at(-1)!.value)
    const series = seriesOf(text).length.toLocaleString('en-US')
    const promClientName = 'prom-client writes all'
    const jsonName = 'GET partitions JSON'
    return [
      { name: `scrape, ${size} partitions (${series} series, median of ${SCRAPES})`, value: ms(ours), unit: 'ms', baseline: { name: promClientName, value: ms(promClient) }, ratio: ms(ours) / ms(promClient) },
      { name: 'scrape against the partitions JSON', value: ms(ours), unit: 'ms', baseline: { name: jsonName, value: ms(json) }, ratio: ms(ours) / ms(json) },
      { name: 'prom-client writes all, against the JSON', value: ms(promClient), unit: 'ms', baseline: { name: jsonName, value: ms(json) }, ratio: ms(promClient) / ms(json) },
      { name: 'scrape, longest event-loop stall', value: longest(ours), unit: 'ms', baseline: { name: promClientName, value: longest(promClient) }, ratio: longest(ours) / longest(promClient), goal: '< 100 ms' },
      { name: 'scrape, longest stall, median of scrapes', value: typical(ours), unit: 'ms', baseline: { name: promClientName, value: typical(promClient) }, ratio: typical(ours) / typical(promClient), goal: '< 100 ms' },
      { name: 'no scrape, longest stall (engine alone)', value: longest(idle), unit: 'ms', baseline: { name: 'median of waits', value: typical(idle) } },
      { name: 'partitions JSON, longest stall', value: longest(json), unit: 'ms', baseline: { name: 'median of runs', value: typical(json) } },
      { name: `scrape size, ${size} partitions`, value: bytes / 1024, unit: 'KiB', baseline: { name: jsonName, value: jsonBytes / 1024 }, ratio: bytes / jsonBytes },
      // What Prometheus receives: it asks for gzip, which server/main.ts answers at level 1.
      { name: 'scrape size, gzip level 1', value: gzipSync(text, { level: 1 }).length / 1024, unit: 'KiB', baseline: { name: jsonName, value: gzipSync(json.at(-1)!.value, { level: 1 }).length / 1024 } },
      {
        name: `without cluster partition gauges (${seriesOf(leaner.at(-1)!.value).length.toLocaleString('en-US')} series)`,
        value: ms(leaner),
        unit: 'ms',
        baseline: { name: jsonName, value: ms(json) },
        ratio: ms(leaner) / ms(json),
      },
      { name: 'without cluster partition gauges, longest stall', value: longest(leaner), unit: 'ms', baseline: { name: 'median of scrapes', value: typical(leaner) }, goal: '< 100 ms' },
      { name: 'without cluster partition gauges, size', value: leanBytes / 1024, unit: 'KiB', baseline: { name: jsonName, value: jsonBytes / 1024 }, ratio: leanBytes / jsonBytes },
    ]
  } finally {
    splitBrain.stop()
    await engine.close()
    await clusters.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}
