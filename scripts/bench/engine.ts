// Mirroring benchmarks (issue: the mirroring engine): throughput embedded → embedded against the
// embedded append throughput of the same run, and STOPPING latency with many partitions.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { MirrorEngine } from '@/server/engine/engine'
import { rawAppendRecordsPerSecond } from './raw-baseline'
import { median, type BenchResult } from './result'

const RECORD_BYTES = 1024
const BATCH_RECORDS = 100

interface Pair {
  root: string
  source: EmbeddedCluster
  destination: EmbeddedCluster
  engine: MirrorEngine
  close(): Promise<void>
}

async function openPair(brokers: number): Promise<Pair> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-engine-'))
  const source = await EmbeddedCluster.open(path.join(root, 'a'), { name: 'a', brokers })
  const destination = await EmbeddedCluster.open(path.join(root, 'b'), { name: 'b', brokers })
  const clusters = new Map([
    ['a', source],
    ['b', destination],
  ])
  const engine = new MirrorEngine({
    clusters: { names: () => [...clusters.keys()], get: (name) => (clusters.has(name) ? { source: clusters.get(name)!, host: clusters.get(name)! } : undefined) },
  })
  await engine.start()
  return {
    root,
    source,
    destination,
    engine,
    async close() {
      await engine.close()
      await source.close()
      await destination.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

function payload(seed: number): string {
  return `${seed}:`.padEnd(RECORD_BYTES, 'x')
}

/** Appends `batches` batches of 100 × 1 KiB records round-robin over the partitions; returns records/s. */
async function appendRecords(cluster: EmbeddedCluster, topic: string, partitions: number, batches: number): Promise<number> {
  const started = performance.now()
  // One in-flight batch per partition, as a producer with one connection per leader would keep.
  await Promise.all(
    Array.from({ length: partitions }, async (_, partition) => {
      for (let batch = partition; batch < batches; batch += partitions) {
        await cluster.produce(topic, { partition, records: Array.from({ length: BATCH_RECORDS }, (_, i) => ({ value: payload(batch * BATCH_RECORDS + i) })) })
      }
    }),
  )
  return (batches * BATCH_RECORDS) / ((performance.now() - started) / 1000)
}

async function mirrorThroughputOnce(): Promise<{ append: number; raw: number; mirror: number }> {
  const partitions = 8
  const batches = 400
  const pair = await openPair(3)
  try {
    await pair.source.createTopic({ name: 'bench', partitions, replicationFactor: 3 })
    const append = await appendRecords(pair.source, 'bench', partitions, batches)
    const raw = rawAppendRecordsPerSecond(batches, (batch) => Array.from({ length: BATCH_RECORDS }, (_, i) => payload(batch * BATCH_RECORDS + i)))
    const total = batches * BATCH_RECORDS
    const started = performance.now()
    await pair.engine.createMirror({ name: 'bench', sourceCluster: 'a', destinationCluster: 'b', topics: ['bench'] })
    for (;;) {
      await pair.engine.tick()
      const mirrored = pair.engine.partitions('bench').reduce((sum, p) => sum + p.destinationHighWatermark, 0)
      if (mirrored >= total) break
    }
    return { append, raw, mirror: total / ((performance.now() - started) / 1000) }
  } finally {
    await pair.close()
  }
}

export async function stoppingLatencyOnce(around: { before?: () => Promise<void>; after?: () => Promise<void> } = {}): Promise<number> {
  const partitions = 1000
  const openTransactions = 100
  const pair = await openPair(1)
  try {
    await pair.source.createTopic({ name: 'wide', partitions, replicationFactor: 1 })
    for (let partition = 0; partition < partitions; partition++) {
      await pair.source.produce('wide', { partition, records: [{ value: payload(partition).slice(0, 100) }] })
    }
    for (let i = 0; i < openTransactions; i++) {
      const producer = await pair.source.createTransactionalProducer(`open-${i}`)
      await producer.send('wide', { partition: (i * 10) % partitions, records: [{ value: 'in flight' }] })
    }
    await pair.engine.createMirror({ name: 'wide', sourceCluster: 'a', destinationCluster: 'b', topics: ['wide'] })
    for (let round = 0; round < 50; round++) {
      await pair.engine.tick()
      const caughtUp = pair.engine.partitions('wide').every((p) => p.state === 'MIRRORING' && p.offsetLag === 0)
      if (caughtUp) break
    }
    await around.before?.()
    const started = performance.now()
    const { operation } = await pair.engine.failover('wide', { confirm: 'wide' })
    const done = await pair.engine.awaitOperation(operation.id)
    const elapsed = performance.now() - started
    await around.after?.()
    if (done.status !== 'succeeded') throw new Error(`failover ${done.status}`)
    return elapsed
  } finally {
    await pair.close()
  }
}

export async function benchEngine(): Promise<BenchResult[]> {
  const runs = []
  for (let i = 0; i < 3; i++) runs.push(await mirrorThroughputOnce())
  const append = median(runs.map((run) => run.append))
  const mirror = median(runs.map((run) => run.mirror))
  const raw = median(runs.map((run) => run.raw))
  const stopping = []
  for (let i = 0; i < 3; i++) stopping.push(await stoppingLatencyOnce())
  return [
    {
      name: 'mirroring embedded → embedded (8 partitions, 1 KiB)',
      value: mirror,
      unit: 'records/s',
      baseline: { name: 'embedded append', value: append },
      ratio: mirror / append,
      goal: 'ratio ≥ 0.5',
    },
    {
      name: '  the same against the raw baseline',
      value: mirror,
      unit: 'records/s',
      baseline: { name: 'file append + fdatasync per batch', value: raw },
      ratio: mirror / raw,
    },
    { name: 'STOPPING 1,000 partitions, 100 open transactions', value: median(stopping), unit: 'ms', goal: '< 2000 ms' },
  ]
}
