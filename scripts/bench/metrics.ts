// `npm run bench -- metrics`: scrapes of GET /api/metrics with a mirror of 10,000 partitions between two embedded
// clusters, wired as the server wires them (the cluster registry's gauges of both clusters, the engine's mirror
// families, prom-client's default metrics), against baselines measured in the same run, scrape after scrape in
// turn: prom-client's registry writing the same collection (how /api/metrics wrote it before exposition.ts), the
// JSON of GET /mirrors/{m}/partitions for the same mirror, and the event loop with no scrape at all (the engine's
// own work); stalls in wall time and in main-thread CPU time (stall-meter.ts). Then the scrape without the clusters' per-partition gauges (MIRRORBOARD_METRICS_CLUSTER_PARTITIONS=0).
// Every scrape's text is checked with promtool (Debian's prometheus) and against prom-client's series.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
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
import { withStalls, type Stalls } from './stall-meter'

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
  stalls: Stalls
  value: T
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

type StallKind = 'wall' | 'main-thread CPU'

function stallsOf(runs: Measured<unknown>[], kind: StallKind): number[] {
  return runs.map((run) => (kind === 'wall' ? run.stalls.wallMs : (run.stalls.cpuMs ?? Number.NaN)))
}

/**
 * Four lines for the stalls of `runs`, wall and CPU: the longest of all runs, and the median over runs of each
 * run's longest (on a shared machine the longest of all is often the OS's doing; the lines with no scrape show
 * how much).
 */
function stallResults(name: string, runs: Measured<unknown>[], options: { baseline?: { name: string; runs: Measured<unknown>[] }; goal?: string } = {}): BenchResult[] {
  const figures: Array<[string, (values: number[]) => number]> = [
    ['longest stall', (values) => Math.max(...values)],
    ['median of longest', median],
  ]
  return (['wall', 'main-thread CPU'] as const).flatMap((kind) =>
    figures.map(([figure, of]): BenchResult => {
      const value = of(stallsOf(runs, kind))
      const baseline = options.baseline && { name: options.baseline.name, value: of(stallsOf(options.baseline.runs, kind)) }
      return { name: `${name}, ${figure} (${kind})`, value, unit: 'ms', ...(baseline && { baseline, ratio: value / baseline.value }), goal: options.goal }
    }),
  )
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
      ours.push(await withStalls(() => metrics.render()))
      promClient.push(await withStalls(async () => promClientExposition(metrics.registry, await metrics.collect())))
      json.push(await withStalls(() => JSON.stringify({ partitions: engine.partitions('wide') })))
      idle.push(await withStalls(() => new Promise<void>((resolve) => setTimeout(resolve, ours.at(-1)!.ms))))
      leaner.push(await withStalls(() => lean.render()))
    }
    const text = ours.at(-1)!.value
    checked('scrape', text)
    checked('scrape without the clusters’ per-partition gauges', leaner.at(-1)!.value)
    const [oursKeys, promClientKeys] = [seriesKeys(text), seriesKeys(promClient.at(-1)!.value)]
    if (oursKeys.join('\n') !== promClientKeys.join('\n')) throw new Error(`the scrape's series differ from prom-client's (${oursKeys.length} against ${promClientKeys.length})`)
    console.log(`same ${oursKeys.length.toLocaleString('en-US')} series as prom-client's writer (process and Node.js metrics aside)`)
    const listed = (runs: Measured<unknown>[], kind: StallKind) => stallsOf(runs, kind).map((value) => Math.round(value)).join(' ')
    console.log(`longest stall of each scrape, ms of main-thread CPU: ${listed(ours, 'main-thread CPU')}; with no scrape: ${listed(idle, 'main-thread CPU')}`)

    const size = PARTITIONS.toLocaleString('en-US')
    const ms = (runs: Measured<unknown>[]) => median(runs.map((run) => run.ms))
    const cpuTotal = (runs: Measured<unknown>[]) => median(runs.map((run) => run.stalls.cpuTotalMs ?? Number.NaN))
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
      // Wall time of a sliced scrape includes the turns it gives the engine; its main-thread CPU says what it costs.
      { name: 'scrape, main-thread CPU', value: cpuTotal(ours), unit: 'ms', baseline: { name: promClientName, value: cpuTotal(promClient) }, ratio: cpuTotal(ours) / cpuTotal(promClient) },
      { name: 'scrape, main-thread CPU, against the JSON', value: cpuTotal(ours), unit: 'ms', baseline: { name: jsonName, value: cpuTotal(json) }, ratio: cpuTotal(ours) / cpuTotal(json) },
      { name: 'no scrape (engine alone), CPU in as long', value: cpuTotal(idle), unit: 'ms' },
      ...stallResults('scrape', ours, { baseline: { name: promClientName, runs: promClient }, goal: '< 100 ms' }),
      ...stallResults('no scrape (engine alone)', idle),
      ...stallResults('partitions JSON', json),
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
      { name: 'without cluster partition gauges, main-thread CPU', value: cpuTotal(leaner), unit: 'ms', baseline: { name: jsonName, value: cpuTotal(json) }, ratio: cpuTotal(leaner) / cpuTotal(json) },
      ...stallResults('without cluster partition gauges', leaner, { goal: '< 100 ms' }),
      { name: 'without cluster partition gauges, size', value: leanBytes / 1024, unit: 'KiB', baseline: { name: jsonName, value: jsonBytes / 1024 }, ratio: leanBytes / jsonBytes },
    ]
  } finally {
    splitBrain.stop()
    await engine.close()
    await clusters.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}
