import 'server-only'
import type { TransactionalProducer } from '@/server/cluster/embedded/producers'
import { createClusterPair, expectThat, formatTable, logTable, sameTable, target, waitForPartitions, type ScenarioDefinition, type TableRow, waitForOperation } from './scenario'

/**
 * The worked example of kip-1279-excerpt.txt, on clusters of its own: producers 4001, 4002 and 4003 write
 * the source table, mirroring stops at offset 2, the failover appends ABORT 4001, ABORT 4002 and the
 * MIRROR_PID_RESET record, and the failback cuts the old source back to offset 3.
 */

const TOPIC = 'orders'
const PARTITION = 0

/** The excerpt's source table. */
export const WORKED_EXAMPLE_SOURCE: readonly TableRow[] = [
  [0, 'DATA', 4001, 'A=1'],
  [1, 'DATA', 4001, 'B=2'],
  [2, 'DATA', 4002, 'X=9'],
  [3, 'COMMIT', 4001, null],
  [4, 'DATA', 4003, 'Y=5'],
  [5, 'DATA', null, 'Z=10'],
]

/** The excerpt's destination table after the STOPPING transition, with the reset record DESIGN.md §4 adds at 5. */
export const WORKED_EXAMPLE_DESTINATION: readonly TableRow[] = [
  [0, 'DATA', 4001, 'A=1'],
  [1, 'DATA', 4001, 'B=2'],
  [2, 'DATA', 4002, 'X=9'],
  [3, 'ABORT', 4001, null],
  [4, 'ABORT', 4002, null],
  [5, 'MIRROR_PID_RESET', null, null],
]

export const kipWorkedExample: ScenarioDefinition = {
  name: 'kip-worked-example',
  title: "The KIP's worked example",
  description:
    'Reproduces the transaction example of KIP-1279 exactly: two open transactions are mirrored up to offset 2, the source commits one of them after mirroring stopped, and the failover aborts both at the destination; the failback then truncates the old source to agree.',
  prefix: 'worked',
  topic: TOPIC,
  steps: [
    { title: 'Create clusters A and B', intro: 'Two clusters of 3 brokers; the source hands out producer ids from 4001.' },
    { title: 'Producers 4001 and 4002 open transactions', intro: 'Producer 4001 writes A=1 and B=2, producer 4002 writes X=9; neither commits yet.' },
    { title: 'Mirror offsets 0–2', intro: 'A mirror from A to B copies offsets 0 to 2, transactions still open.' },
    { title: 'Replication stops at offset 2', intro: 'The mirror is paused, as if the link had just gone down.' },
    { title: 'The source moves on', intro: 'At the source, 4001 commits (offset 3), 4003 writes Y=5 and a plain producer writes Z=10.' },
    { title: 'Preview the failover', intro: 'The failover plan: what is at risk and which transactions will be aborted.' },
    { title: 'Fail over to B', intro: 'STOPPING: remove the fetcher, save the last mirror position, bump the epoch, abort open transactions, write MIRROR_PID_RESET.' },
    { title: 'Fail back to A', intro: 'A mirror from B back to A: A is truncated to the last mirror position, then copies B’s markers.' },
  ],
  plan(context) {
    const { sourceCluster, destinationCluster, mirror } = context.names
    const backMirror = `${mirror}-back`
    const producers: TransactionalProducer[] = []
    const sourcePage = target({ cluster: sourceCluster, topic: TOPIC, partition: PARTITION })
    const mirrorPartition = target({ mirror, cluster: destinationCluster, topic: TOPIC, partition: PARTITION })
    const source = () => context.clusters.embedded(sourceCluster)
    return {
      steps: [
        async () => {
          await createClusterPair(context, { source: { firstProducerId: 4001, transactionTimeoutMs: 15 * 60_000 }, destination: { firstProducerId: 9001 } })
          await source().createTopic({ name: TOPIC, partitions: 1, replicationFactor: 3 })
          return { narration: `Clusters ${sourceCluster} (A) and ${destinationCluster} (B) are up, with topic ${TOPIC} (1 partition, 3 replicas) on A.`, target: target({ cluster: sourceCluster }) }
        },
        async () => {
          for (const id of ['4001', '4002', '4003']) producers.push(await source().createTransactionalProducer(`${mirror}-tx-${id}`))
          const ids = producers.map((p) => p.producerId)
          expectThat(JSON.stringify(ids) === '[4001,4002,4003]', `expected producer ids 4001, 4002, 4003, got ${ids.join(', ')}`)
          const [p4001, p4002] = producers
          await p4001!.send(TOPIC, { partition: PARTITION, records: [{ key: 'A', value: '1' }] })
          await p4001!.send(TOPIC, { partition: PARTITION, records: [{ key: 'B', value: '2' }] })
          await p4002!.send(TOPIC, { partition: PARTITION, records: [{ key: 'X', value: '9' }] })
          const table = await logTable(context, sourceCluster, TOPIC, PARTITION)
          expectThat(sameTable(table, WORKED_EXAMPLE_SOURCE.slice(0, 3)), `unexpected source log: ${formatTable(table)}`)
          return { narration: `Source log: ${formatTable(table)}. Both transactions are open, so the last stable offset stays at 0.`, target: sourcePage }
        },
        async () => {
          await context.engine.createMirror({ name: mirror, sourceCluster, destinationCluster, topics: [TOPIC] })
          await waitForPartitions(context, mirror, 'offsets 0–2 on B', (p) => p.state === 'MIRRORING' && p.destinationLogEndOffset === 3)
          const table = await logTable(context, destinationCluster, TOPIC, PARTITION)
          return { narration: `Mirror ${mirror} went PREPARING → MIRRORING; B holds ${formatTable(table)}, the same offsets, producer ids and epochs as A.`, target: mirrorPartition }
        },
        async () => {
          await context.engine.pauseTopics(mirror)
          await waitForPartitions(context, mirror, 'the mirror to pause', (p) => p.state === 'PAUSED')
          return { narration: 'MIRRORING → PAUSING → PAUSED: nothing more reaches B; B stays read-only.', target: mirrorPartition }
        },
        async () => {
          const [p4001, , p4003] = producers
          await p4001!.commit()
          await p4003!.send(TOPIC, { partition: PARTITION, records: [{ key: 'Y', value: '5' }] })
          await source().produce(TOPIC, { partition: PARTITION, idempotent: false, records: [{ key: 'Z', value: '10' }] })
          const table = await logTable(context, sourceCluster, TOPIC, PARTITION)
          expectThat(sameTable(table, WORKED_EXAMPLE_SOURCE), `the source log differs from the excerpt: ${formatTable(table)}`)
          return { narration: `Source log, as in the excerpt: ${formatTable(table)}. B still ends at offset 2.`, target: sourcePage }
        },
        async () => {
          const plan = await context.engine.failoverPlan(mirror)
          const [partition] = plan.partitions
          expectThat(partition !== undefined && partition.recordsAtRisk === 3, `expected 3 records at risk, got ${partition?.recordsAtRisk ?? 'none'}`)
          const aborts = partition.transactionsToAbort.map((t) => `${t.producerId}@${t.firstOffset}`)
          expectThat(aborts.join(',') === '4001@0,4002@2', `expected to abort 4001 (from 0) and 4002 (from 2), got ${aborts.join(', ') || 'none'}`)
          return {
            narration: `B holds offsets 0–2 of A's 0–5: 3 records are at risk (the COMMIT of 4001, Y=5, Z=10). Transactions to abort at B: 4001 from offset 0 and 4002 from offset 2.`,
            target: mirrorPartition,
          }
        },
        async () => {
          const { operation } = await context.engine.failover(mirror, { confirm: mirror })
          const finished = await waitForOperation(context, operation.id)
          expectThat(finished.status === 'succeeded', `the failover ${finished.status}: ${finished.partitions.map((p) => p.error).filter(Boolean).join('; ')}`)
          const table = await logTable(context, destinationCluster, TOPIC, PARTITION)
          expectThat(sameTable(table, WORKED_EXAMPLE_DESTINATION), `the destination log differs from the excerpt: ${formatTable(table)}`)
          return {
            narration: `PAUSED → STOPPING → STOPPED. B's log: ${formatTable(table)}. 4001 was committed at A but is aborted at B: its COMMIT had not been mirrored. B is writable.`,
            target: { ...mirrorPartition, operation: operation.id },
          }
        },
        async () => {
          await context.engine.createMirror({ name: backMirror, sourceCluster: destinationCluster, destinationCluster: sourceCluster, topics: [TOPIC] })
          const [partition] = await waitForPartitions(
            context,
            backMirror,
            'A to be truncated and to catch up with B',
            (p) => p.state === 'MIRRORING' && p.lastTruncation !== null && p.destinationLogEndOffset === 6,
          )
          const truncation = partition!.lastTruncation!
          expectThat(truncation.offset === 3 && truncation.removedRecords === 3, `expected A truncated to 3 removing 3 records, got ${truncation.offset} removing ${truncation.removedRecords}`)
          const a = await logTable(context, sourceCluster, TOPIC, PARTITION)
          expectThat(sameTable(a, WORKED_EXAMPLE_DESTINATION), `A differs from B after the failback: ${formatTable(a)}`)
          return {
            narration: `Mirror ${backMirror} (B → A) went PREPARING: A was truncated to offset 3, removing its COMMIT, Y=5 and Z=10, then mirrored B's markers. A now reads ${formatTable(a)}, exactly as B.`,
            target: target({ mirror: backMirror, cluster: sourceCluster, topic: TOPIC, partition: PARTITION }),
          }
        },
      ],
      cleanup: async () => {
        for (const producer of producers) producer.close()
      },
    }
  },
}
