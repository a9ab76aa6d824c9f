// `npm run bench -- switchover`: planned switchovers (issue #34) on embedded clusters with the engine's
// background loop, while producers keep writing to the source (their writes refused once fenced).
// Figures: for a 3-topic, 21-partition mirror, 5 runs, the time writes were refused (fence → every partition
// STOPPED), median and max (goal median < 5 s with lag < 1 s at the start), and the records lost (must be 0);
// then one 2,000-partition switchover, fence → STOPPED (goal < 10 s). Each run builds its own clusters.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { isClusterError } from '@/server/cluster/errors'
import { MirrorEngine } from '@/server/engine/engine'
import type { FailoverOperation } from '@/server/engine/types'
import { median, type BenchResult } from './result'

const RUNS = Number(process.env.BENCH_SWITCHOVER_RUNS ?? 5)
const WIDE_PARTITIONS = Number(process.env.BENCH_SWITCHOVER_PARTITIONS ?? 2_000)
/** Records per second the producers write (in batches every 50 ms), as the demo workloads do. */
const RATE = Number(process.env.BENCH_SWITCHOVER_RATE ?? 200)

interface RunFigures {
  refusedMs: number
  drainMs: number
  lost: number | null
  refusedWrites: number
  acknowledged: number
  lagAtStartMs: number
}

async function oneSwitchover(topics: number, partitionsPerTopic: number): Promise<RunFigures> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-switchover-'))
  const clusters = new Map<string, EmbeddedCluster>()
  for (const name of ['a', 'b']) clusters.set(name, await EmbeddedCluster.open(path.join(root, name), { name, brokers: 1, config: { tickIntervalMs: 100 } }))
  const a = clusters.get('a')!
  const engine = new MirrorEngine({
    clusters: { names: () => [...clusters.keys()], get: (name) => (clusters.has(name) ? { source: clusters.get(name)!, host: clusters.get(name)! } : undefined) },
    fetchMaxWaitMs: 500,
  })
  const names = Array.from({ length: topics }, (_, i) => `switched-${i}`)
  const total = topics * partitionsPerTopic
  let producing = true
  let production: Promise<void> = Promise.resolve()
  let acknowledged = 0
  let refusedWrites = 0
  try {
    await engine.start()
    for (const name of names) await a.createTopic({ name, partitions: partitionsPerTopic, replicationFactor: 1 })
    engine.startBackground(100)
    await engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: names })
    for (let waited = 0; engine.mirrorSummary('m').partitionsByState.MIRRORING !== total; waited += 100) {
      if (waited > 180_000) throw new Error(`not mirroring: ${JSON.stringify(engine.mirrorSummary('m').partitionsByState)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    production = (async () => {
      while (producing) {
        const started = performance.now()
        const batch = Math.max(1, Math.round(RATE / 20))
        await Promise.all(
          Array.from({ length: batch }, async () => {
            const partition = Math.floor(Math.random() * total)
            try {
              await a.produce(names[Math.floor(partition / partitionsPerTopic)]!, { partition: partition % partitionsPerTopic, records: [{ key: 'load', value: 'x'.repeat(200) }] })
              acknowledged += 1
            } catch (error) {
              if (isClusterError(error, 'TOPIC_WRITE_FENCED')) refusedWrites += 1
            }
          }),
        )
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (performance.now() - started))))
      }
    })()
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const lagAtStartMs = Math.max(0, ...engine.partitions('m').map((p) => p.timeLagMs ?? 0))
    const { operation } = await engine.switchover('m', { confirm: 'm' })
    let finished: FailoverOperation = operation
    for (let waited = 0; (finished = engine.getOperation(operation.id)).status === 'running'; waited += 50) {
      if (waited > 300_000) throw new Error(`switchover still running: ${JSON.stringify(finished.switchover)}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const s = finished.switchover!
    if (finished.status !== 'succeeded') throw new Error(`switchover ${finished.status}: ${s.reason}`)
    return {
      refusedMs: (s.stoppedAt ?? 0) - (s.fencedAt ?? 0),
      drainMs: (s.drainedAt ?? 0) - (s.drainStartedAt ?? 0),
      lost: s.recordsLost?.total ?? null,
      refusedWrites,
      acknowledged,
      lagAtStartMs,
    }
  } finally {
    producing = false
    await production
    await engine.close()
    for (const cluster of clusters.values()) await cluster.close()
    await rm(root, { recursive: true, force: true })
  }
}

export async function benchSwitchover(): Promise<BenchResult[]> {
  const runs: RunFigures[] = []
  for (let run = 0; run < RUNS; run++) {
    const figures = await oneSwitchover(3, 7)
    console.log(
      `  run ${run + 1}: writes refused ${figures.refusedMs} ms (drain ${figures.drainMs} ms), lag at start ${figures.lagAtStartMs} ms, ${figures.acknowledged} acknowledged, ${figures.refusedWrites} refused, lost ${figures.lost}`,
    )
    runs.push(figures)
  }
  const wide = await oneSwitchover(20, WIDE_PARTITIONS / 20)
  console.log(`  ${WIDE_PARTITIONS} partitions: writes refused ${wide.refusedMs} ms (drain ${wide.drainMs} ms), lost ${wide.lost}`)
  return [
    { name: '21 partitions: writes refused, median', value: median(runs.map((r) => r.refusedMs)), unit: 'ms', goal: '< 5,000 ms with lag < 1 s at the start' },
    { name: '21 partitions: writes refused, max', value: Math.max(...runs.map((r) => r.refusedMs)), unit: 'ms' },
    { name: '21 partitions: records lost, all runs', value: runs.reduce((sum, r) => sum + (r.lost ?? Number.NaN), 0), unit: 'records', goal: '0' },
    { name: `${WIDE_PARTITIONS.toLocaleString('en-US')} partitions: writes refused`, value: wide.refusedMs, unit: 'ms', goal: '< 10,000 ms' },
    { name: `${WIDE_PARTITIONS.toLocaleString('en-US')} partitions: records lost`, value: wide.lost ?? Number.NaN, unit: 'records', goal: '0' },
  ]
}
