// `npm run bench -- metrics`: one scrape of GET /api/metrics with a mirror of 10,000 partitions, as the server
// wires it (the cluster registry's gauges of both clusters, the engine's mirror families, the default metrics),
// against a baseline measured in the same run: the JSON of GET /mirrors/{m}/partitions for the same mirror.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { ClusterRegistry } from '@/server/cluster/registry'
import { EventHub } from '@/server/http/events'
import { logger } from '@/server/observability/logger'
import { MetricsRegistry } from '@/server/observability/metrics'
import { createEngine } from '@/server/runtime'
import { median, type BenchResult } from './result'

const TOPICS = 10
const PARTITIONS = Number(process.env.BENCH_METRICS_PARTITIONS ?? 10_000)
const SCRAPES = 9

async function timed<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const started = performance.now()
  const value = await run()
  return { ms: performance.now() - started, value }
}

export async function benchMetrics(): Promise<BenchResult[]> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-metrics-'))
  const quiet = logger.child({ module: 'bench' })
  const clusters = await ClusterRegistry.open({ dataDir, log: quiet })
  const metrics = new MetricsRegistry(undefined, { defaultMetrics: true })
  metrics.register('clusters', () => clusters.collectMetrics())
  const { engine, splitBrain } = await createEngine({ clusters, events: new EventHub(), metrics, log: quiet, dataDir })
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
    const scrapes: number[] = []
    const baselines: number[] = []
    let bytes = 0
    let baselineBytes = 0
    let series = 0
    const stalls = monitorEventLoopDelay({ resolution: 5 })
    stalls.enable()
    for (let i = 0; i < SCRAPES; i++) {
      const scrape = await timed(() => metrics.render())
      // The delay monitor records a stall when its next timer runs late: give it that turn.
      await new Promise((resolve) => setTimeout(resolve, 20))
      scrapes.push(scrape.ms)
      bytes = Buffer.byteLength(scrape.value)
      series = scrape.value.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length
      const baseline = await timed(() => JSON.stringify({ partitions: engine.partitions('wide') }))
      baselines.push(baseline.ms)
      baselineBytes = Buffer.byteLength(baseline.value)
    }
    stalls.disable()
    const size = PARTITIONS.toLocaleString('en-US')
    const scrapeMs = median(scrapes)
    const baselineMs = median(baselines)
    return [
      {
        name: `scrape, ${size} partitions (${series.toLocaleString('en-US')} series, median of ${SCRAPES})`,
        value: scrapeMs,
        unit: 'ms',
        baseline: { name: 'GET partitions JSON', value: baselineMs },
        ratio: scrapeMs / baselineMs,
      },
      { name: 'scrapes and baselines, longest event-loop stall', value: stalls.max / 1e6, unit: 'ms' },
      { name: `scrape size, ${size} partitions`, value: bytes / 1024, unit: 'KiB', baseline: { name: 'GET partitions JSON', value: baselineBytes / 1024 }, ratio: bytes / baselineBytes },
    ]
  } finally {
    splitBrain.stop()
    await engine.close()
    await clusters.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}
