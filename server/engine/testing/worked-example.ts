import 'server-only'
import type { TransactionalProducer } from '@/server/cluster/embedded/producers'
import type { EngineHarness } from './harness'

/**
 * @internal The KIP's worked example (kip-1279-excerpt.txt) as steps over an engine harness with clusters
 * `a` (source, producer ids from 4001) and `b` (destination):
 *   0 DATA 4001 A=1 · 1 DATA 4001 B=2 · 2 DATA 4002 X=9 · 3 COMMIT 4001 · 4 DATA 4003 Y=5 · 5 DATA none Z=10
 */
export const WORKED_EXAMPLE_TOPIC = 'orders'

export const WORKED_EXAMPLE_CLUSTERS = { a: { config: { firstProducerId: 4001 } }, b: { config: { firstProducerId: 9001 } } }

export interface WorkedExampleProducers {
  p4001: TransactionalProducer
  p4002: TransactionalProducer
  p4003: TransactionalProducer
}

/** Source offsets 0–2: two open transactions. */
export async function writeSourceUpToOffset2(harness: EngineHarness): Promise<WorkedExampleProducers> {
  const a = harness.cluster('a')
  await a.createTopic({ name: WORKED_EXAMPLE_TOPIC, partitions: 1, replicationFactor: 3 })
  const p4001 = await a.createTransactionalProducer('tx-4001')
  const p4002 = await a.createTransactionalProducer('tx-4002')
  const p4003 = await a.createTransactionalProducer('tx-4003')
  await p4001.send(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ key: 'A', value: '1' }] })
  await p4001.send(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ key: 'B', value: '2' }] })
  await p4002.send(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ key: 'X', value: '9' }] })
  return { p4001, p4002, p4003 }
}

/** Source offsets 3–5: the COMMIT of 4001, Y from 4003, a plain Z. */
export async function writeRestOfSource(harness: EngineHarness, producers: WorkedExampleProducers): Promise<void> {
  await producers.p4001.commit()
  await producers.p4003.send(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ key: 'Y', value: '5' }] })
  await harness.cluster('a').produce(WORKED_EXAMPLE_TOPIC, { partition: 0, idempotent: false, records: [{ key: 'Z', value: '10' }] })
}

/** Mirror `dr` (a → b) reaches offset 2, is paused, then the source writes the rest. */
export async function mirrorOffsets0To2ThenPause(harness: EngineHarness): Promise<WorkedExampleProducers> {
  const producers = await writeSourceUpToOffset2(harness)
  await harness.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: [WORKED_EXAMPLE_TOPIC] })
  await harness.run(5)
  const [partition] = harness.engine.partitions('dr')
  if (partition?.state !== 'MIRRORING' || partition.destinationLogEndOffset !== 3) {
    throw new Error(`expected dr to mirror offsets 0-2, got ${JSON.stringify(partition)}`)
  }
  await harness.engine.pauseTopics('dr')
  await harness.run(2)
  await writeRestOfSource(harness, producers)
  await harness.run(3)
  return producers
}
