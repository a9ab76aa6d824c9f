// Embedded engine benchmarks at 10,000 partitions (issue #18): creating and starting a mirror of that size,
// and STOPPING it with 1,000 open transactions. Each reports the event loop's longest stall as well.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { MirrorEngine } from '@/server/engine/engine'
import type { BenchResult } from './result'

const TOPICS = 10
const PARTITIONS = Number(process.env.BENCH_SCALE_PARTITIONS ?? 10_000)
const OPEN_TRANSACTIONS = Math.round(PARTITIONS / 10)
/** Runs of the STOPPING bench; the median is reported (one run on a shared machine says little). */
const STOPPING_REPEAT = Math.max(1, Number(process.env.BENCH_SCALE_REPEAT ?? 1))
/** A file to write a CPU profile of the measured failover to (open it in Chrome's DevTools). */
const PROFILE_PATH = process.env.BENCH_SCALE_PROFILE

/** Profiles `run` into PROFILE_PATH when one is set. */
async function profiled<T>(run: () => Promise<T>): Promise<T> {
  if (!PROFILE_PATH) return run()
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  try {
    return await run()
  } finally {
    const { profile } = await session.post('Profiler.stop')
    await writeFile(PROFILE_PATH, JSON.stringify(profile))
    session.disconnect()
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

async function openPair(brokers: number) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-engine-scale-'))
  const clusters = new Map<string, EmbeddedCluster>()
  for (const name of ['a', 'b']) clusters.set(name, await EmbeddedCluster.open(path.join(root, name), { name, brokers }))
  const engine = new MirrorEngine({ clusters: { names: () => [...clusters.keys()], get: (name) => (clusters.has(name) ? { source: clusters.get(name)!, host: clusters.get(name)! } : undefined) } })
  await engine.start()
  return {
    source: clusters.get('a')!,
    engine,
    async close() {
      await engine.close()
      for (const cluster of clusters.values()) await cluster.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

function topicNames(): string[] {
  return Array.from({ length: TOPICS }, (_, i) => `wide-${i}`)
}

async function untilMirroring(engine: MirrorEngine): Promise<void> {
  for (let round = 0; engine.mirrorSummary('wide').partitionsByState.MIRRORING !== PARTITIONS; round++) {
    if (round > 500) throw new Error(`not mirroring: ${JSON.stringify(engine.mirrorSummary('wide').partitionsByState)}`)
    await engine.tick()
  }
}

/** Create + start of a 10,000-partition mirror (3 brokers, replication factor 3) until every partition mirrors. */
export async function createAndStartOnce(): Promise<{ ms: number; maxStallMs: number }> {
  const pair = await openPair(3)
  try {
    for (const name of topicNames()) await pair.source.createTopic({ name, partitions: PARTITIONS / TOPICS, replicationFactor: 3 })
    const stalls = monitorEventLoopDelay({ resolution: 5 })
    stalls.enable()
    const started = performance.now()
    await pair.engine.createMirror({ name: 'wide', sourceCluster: 'a', destinationCluster: 'b', topics: topicNames() })
    await untilMirroring(pair.engine)
    const ms = performance.now() - started
    stalls.disable()
    return { ms, maxStallMs: stalls.max / 1e6 }
  } finally {
    await pair.close()
  }
}

/** The failover (STOPPING) of 10,000 mirroring partitions of which 1,000 hold an open transaction. */
export async function stoppingOnce(): Promise<{ ms: number; maxStallMs: number }> {
  const pair = await openPair(1)
  try {
    for (const name of topicNames()) await pair.source.createTopic({ name, partitions: PARTITIONS / TOPICS, replicationFactor: 1 })
    const perTopic = PARTITIONS / TOPICS
    for (let i = 0; i < OPEN_TRANSACTIONS; i++) {
      const producer = await pair.source.createTransactionalProducer(`open-${i}`)
      const at = i * 10
      await producer.send(`wide-${Math.floor(at / perTopic)}`, { partition: at % perTopic, records: [{ value: 'in flight' }] })
    }
    await pair.engine.createMirror({ name: 'wide', sourceCluster: 'a', destinationCluster: 'b', topics: topicNames() })
    await untilMirroring(pair.engine)
    for (let round = 0; round < 20 && pair.engine.partitions('wide').some((p) => p.offsetLag !== 0); round++) await pair.engine.tick()
    const stalls = monitorEventLoopDelay({ resolution: 5 })
    stalls.enable()
    const started = performance.now()
    const done = await profiled(async () => {
      const { operation } = await pair.engine.failover('wide', { confirm: 'wide' })
      return pair.engine.awaitOperation(operation.id)
    })
    const ms = performance.now() - started
    stalls.disable()
    if (done.status !== 'succeeded') throw new Error(`failover ${done.status}`)
    return { ms, maxStallMs: stalls.max / 1e6 }
  } finally {
    await pair.close()
  }
}

export async function benchEngineScale(): Promise<BenchResult[]> {
  const size = PARTITIONS.toLocaleString('en-US')
  const results: BenchResult[] = []
  if (process.env.BENCH_SCALE !== 'stopping') {
    const create = await createAndStartOnce()
    results.push({ name: `embedded: create+start ${size} partitions (RF 3)`, value: create.ms, unit: 'ms', goal: '< 10000 ms' })
    results.push({ name: `embedded: create+start, longest stall`, value: create.maxStallMs, unit: 'ms', goal: '< 100 ms' })
  }
  if (process.env.BENCH_SCALE !== 'create') {
    const runs: Array<{ ms: number; maxStallMs: number }> = []
    for (let i = 0; i < STOPPING_REPEAT; i++) runs.push(await stoppingOnce())
    const over = runs.length > 1 ? ` (median of ${runs.length}: ${runs.map((run) => Math.round(run.ms)).join(', ')} ms)` : ''
    results.push({ name: `embedded: STOPPING ${size}, ${OPEN_TRANSACTIONS.toLocaleString('en-US')} open txns${over}`, value: median(runs.map((run) => run.ms)), unit: 'ms', goal: '< 2000 ms' })
    results.push({ name: `embedded: STOPPING, longest stall`, value: Math.max(...runs.map((run) => run.maxStallMs)), unit: 'ms', goal: '< 100 ms' })
  }
  return results
}
