import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks'
import { ClusterRegistry } from '@/server/cluster/registry'
import { EventHub } from '@/server/http/events'
import { logger, type Logger } from '@/server/observability/logger'
import { MetricsRegistry } from '@/server/observability/metrics'
import { mirrorMetrics } from '@/server/engine/mirror-metrics'
import { createEngine } from '@/server/runtime'

const TOPICS = 10, PARTITIONS = 10_000
const gcs: { start: number; duration: number; kind: number }[] = []
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push({ start: e.startTime, duration: e.duration, kind: (e as any).detail?.kind }) }).observe({ entryTypes: ['gc'] })
async function t<T>(label: string, run: () => Promise<T> | T): Promise<T> {
  const h = monitorEventLoopDelay({ resolution: 1 }); h.enable()
  const s = performance.now(); const v = await run(); const e = performance.now()
  await new Promise((r) => setTimeout(r, 20)); h.disable()
  const mine = gcs.filter((g) => g.start >= s && g.start <= e + 20)
  const cpu = process.cpuUsage()
  console.log(label.padEnd(24), (e - s).toFixed(1), 'ms  stall', (h.max / 1e6).toFixed(1), ' gc', mine.length, 'max', Math.max(0, ...mine.map((g) => g.duration)).toFixed(1), 'sum', mine.reduce((a, g) => a + g.duration, 0).toFixed(1), 'kinds', [...new Set(mine.map(g=>g.kind))].join(',')); return v
}
async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-metrics-'))
  const log = logger.child({ module: 'bench' })
  const quiet: Logger = { debug: () => {}, info: () => {}, warn: log.warn, error: log.error, child: () => quiet }
  const clusters = await ClusterRegistry.open({ dataDir, log: quiet })
  const metrics = new MetricsRegistry(undefined, { defaultMetrics: true })
  metrics.register('clusters', () => clusters.collectMetrics())
  const { engine, splitBrain } = await createEngine({ clusters, events: new EventHub(), metrics, log: quiet, dataDir })
  for (const name of ['a', 'b']) await clusters.create({ name, kind: 'embedded', brokers: 1 })
  const topics = Array.from({ length: TOPICS }, (_, i) => `wide-${i}`)
  for (const name of topics) await clusters.embedded('a').createTopic({ name, partitions: PARTITIONS / TOPICS, replicationFactor: 1 })
  await engine.createMirror({ name: 'wide', sourceCluster: 'a', destinationCluster: 'b', topics })
  while (engine.mirrorSummary('wide').partitionsByState.MIRRORING !== PARTITIONS || engine.mirrorSummary('wide').maxOffsetLag === null) await new Promise((r) => setTimeout(r, 200))
  const { Session } = await import('node:inspector/promises')
  const session = new Session(); session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start')
  for (let i = 0; i < 5; i++) await metrics.render()
  const { profile } = await session.post('Profiler.stop'); require('node:fs').writeFileSync('/tmp/scr/render2.cpuprofile', JSON.stringify(profile))
  for (let i = 0; i < 0; i++) {
    await t('idle 300', () => new Promise((r) => setTimeout(r, 300)))
    await t('describeTopics a', () => clusters.embedded('a').describeTopics())
    await t('describe one topic', () => clusters.embedded('a').describeTopics(['wide-1']))
    await t('cluster collect', () => clusters.collectMetrics())
    await t('mirrorFigures', () => engine.mirrorFigures('wide', []))
    await t('mirrorMetrics', () => mirrorMetrics(engine))
    await t('collect all', () => metrics.collect())
    await t('registry.metrics only', () => metrics.registry.metrics())
    await t('render', () => metrics.render())
    if (i === 3) for (const m of metrics.registry.getMetricsAsArray()) { const s = performance.now(); await (m as unknown as { get(): Promise<unknown> }).get(); const d = performance.now() - s; if (d > 1) console.log('   default', m.name, d.toFixed(1)) }
    await t('readdir fd', () => require('node:fs').readdirSync('/proc/self/fd').length)
    await t('json', () => JSON.stringify({ partitions: engine.partitions('wide') }))
  }
  splitBrain.stop(); await engine.close(); await clusters.close(); await rm(dataDir, { recursive: true, force: true })
}
main()
