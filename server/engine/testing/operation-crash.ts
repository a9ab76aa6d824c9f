import 'server-only'
import type { EngineHarness } from './harness'

/**
 * @internal The scenario of operation-crash.test.ts: mirror `dr` (a → b) of topic `t`, every partition
 * holding two committed records and open transactions (producer `tx-all` on every partition, then
 * `tx-even` on the even ones), mirrored and caught up, so a failover must abort one or two transactions per
 * partition, in that order, and write one reset record.
 */
export const OPERATION_CRASH_CLUSTERS = { a: { brokers: 1, config: { firstProducerId: 5001 } }, b: { brokers: 1, config: { firstProducerId: 9001 } } }
export const OPERATION_CRASH_MIRROR = 'dr'
export const OPERATION_CRASH_TOPIC = 't'
export const OPERATION_CRASH_PARTITIONS = 40
export const OPERATION_CRASH_REQUESTER = { actor: 'token:operator', role: 'operator' as const }

export interface OpenTransactionProducers {
  /** Open on every partition, first. */
  all: number
  /** Open on the even partitions, after `all`. */
  even: number
}

export async function prepareMirrorWithOpenTransactions(harness: EngineHarness): Promise<OpenTransactionProducers> {
  const a = harness.cluster('a')
  const topic = OPERATION_CRASH_TOPIC
  await a.createTopic({ name: topic, partitions: OPERATION_CRASH_PARTITIONS, replicationFactor: 1 })
  for (let partition = 0; partition < OPERATION_CRASH_PARTITIONS; partition++) {
    await a.produce(topic, { partition, records: [{ value: `one ${partition}` }, { value: `two ${partition}` }] })
  }
  const all = await a.createTransactionalProducer('tx-all')
  const even = await a.createTransactionalProducer('tx-even')
  for (let partition = 0; partition < OPERATION_CRASH_PARTITIONS; partition++) await all.send(topic, { partition, records: [{ value: `all ${partition}` }] })
  for (let partition = 0; partition < OPERATION_CRASH_PARTITIONS; partition += 2) await even.send(topic, { partition, records: [{ value: `even ${partition}` }] })
  await harness.engine.createMirror({ name: OPERATION_CRASH_MIRROR, sourceCluster: 'a', destinationCluster: 'b', topics: [topic] })
  await harness.run(6)
  const partitions = harness.engine.partitions(OPERATION_CRASH_MIRROR)
  const behind = partitions.filter((p) => p.state !== 'MIRRORING' || p.destinationLogEndOffset !== (p.partition % 2 === 0 ? 4 : 3))
  if (partitions.length !== OPERATION_CRASH_PARTITIONS || behind.length > 0) throw new Error(`expected every partition mirrored, got ${JSON.stringify(behind.slice(0, 3))}`)
  return { all: all.producerId, even: even.producerId }
}
