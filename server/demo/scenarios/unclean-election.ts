import 'server-only'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import { createClusterPair, expectThat, target, waitFor, waitForCaughtUp, waitForPartitions, type ScenarioDefinition } from './scenario'

/**
 * Divergence at the source: an out-of-sync replica is elected uncleanly, and records the mirror already copied
 * vanish from the source's history. With mirror.support.unclean.leader.election the mirror truncates its copy
 * to the divergence point and carries on (ULE_LOG_TRUNCATION); without it the partition fails for good.
 */

const TOPIC = 'clickstream'
/** Same divergence, without the flag. */
const STRICT_TOPIC = 'ledger'
const LOST_RECORDS = 4

function clicks(prefix: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({ key: `${prefix}-${i}`, value: `${prefix} ${i}` }))
}

export const uncleanElection: ScenarioDefinition = {
  name: 'unclean-election',
  title: 'Unclean election at the source',
  description:
    'A source partition elects a replica that had fallen behind, losing records the mirror already copied. The mirror detects the divergence from the leader epochs: one topic allows ULE handling and truncates to the divergence point, the other stops in FAILED until an operator looks.',
  prefix: 'unclean',
  topic: TOPIC,
  steps: [
    { title: 'Mirror two topics', intro: `${TOPIC} allows unclean-election handling (${MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION}=true), ${STRICT_TOPIC} does not; both are mirrored and caught up.` },
    { title: 'Unclean election at the source', intro: `On both topics a replica ${LOST_RECORDS} records behind becomes leader; the source then writes new records on top.` },
    { title: 'ULE handling truncates the mirror', intro: `${TOPIC}: the next fetch reports a diverging epoch; the mirror truncates to it and mirrors the new history.` },
    { title: 'Without it: FAILED for good', intro: `${STRICT_TOPIC}: the same divergence fails the partition, non-retryable, and nothing is truncated.` },
  ],
  plan(context) {
    const { sourceCluster, destinationCluster, mirror } = context.names
    const source = () => context.clusters.embedded(sourceCluster)
    const destination = () => context.clusters.embedded(destinationCluster)
    let cutAt = 0
    return {
      steps: [
        async () => {
          await createClusterPair(context)
          for (const topic of [TOPIC, STRICT_TOPIC]) {
            await source().createTopic({ name: topic, partitions: 1, replicationFactor: 3 })
            await source().produce(topic, { partition: 0, records: clicks('before', 20) })
          }
          await context.engine.createMirror({ name: mirror, sourceCluster, destinationCluster, topics: [TOPIC, STRICT_TOPIC] })
          await destination().alterTopicConfigs(TOPIC, { [MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION]: 'true' })
          await waitForCaughtUp(context, mirror, sourceCluster, TOPIC)
          await waitForCaughtUp(context, mirror, sourceCluster, STRICT_TOPIC)
          return { narration: `Both topics are MIRRORING with all 20 records on ${destinationCluster}.`, target: target({ mirror, cluster: destinationCluster, topic: TOPIC, partition: 0 }) }
        },
        async () => {
          const results = []
          for (const topic of [TOPIC, STRICT_TOPIC]) {
            results.push(await source().electLaggingReplicaUncleanly({ topic, partition: 0 }, LOST_RECORDS))
            await source().produce(topic, { partition: 0, records: clicks('after', 3) })
          }
          const [first] = results
          cutAt = first!.logEndOffset
          return {
            narration: `Broker ${first!.leader} now leads ${TOPIC}-0 after an unclean election: offsets ${cutAt}–${first!.previousLogEndOffset - 1} exist only on broker ${first!.previousLeader}, which truncates them. The source wrote 3 new records from offset ${cutAt}; ${destinationCluster} still holds the old ones.`,
            target: target({ cluster: sourceCluster, topic: TOPIC, partition: 0 }),
          }
        },
        async () => {
          const [partition] = await waitForPartitions(
            context,
            mirror,
            `${TOPIC} to truncate and resume`,
            (p) => p.state === 'MIRRORING' && p.lastTruncation !== null && context.engine.partitionHistory(mirror, TOPIC, 0).some((t) => t.to === 'ULE_LOG_TRUNCATION'),
            { topic: TOPIC },
          )
          await waitForCaughtUp(context, mirror, sourceCluster, TOPIC)
          const [sourcePage, destinationPage] = await Promise.all([source().readRecords(TOPIC, 0, { limit: 1000 }), destination().readRecords(TOPIC, 0, { limit: 1000 })])
          const shape = (page: typeof sourcePage) => page.records.map((r) => [r.offset, r.value, r.leaderEpoch])
          expectThat(JSON.stringify(shape(sourcePage)) === JSON.stringify(shape(destinationPage)), 'the destination log differs from the source after ULE handling')
          const truncation = partition!.lastTruncation!
          return {
            narration: `MIRRORING → ULE_LOG_TRUNCATION → MIRRORING: ${destinationCluster} cut its log at offset ${truncation.offset} (${truncation.removedRecords} records removed) and mirrored the new history; both logs are identical, epochs included.`,
            target: target({ mirror, cluster: destinationCluster, topic: TOPIC, partition: 0 }),
          }
        },
        async () => {
          const [partition] = await waitForPartitions(context, mirror, `${STRICT_TOPIC} to fail`, (p) => p.state === 'FAILED' && p.retryAttempt === -1, { topic: STRICT_TOPIC })
          const end = await waitFor(context, 'the destination end offset', async () => (await destination().describeTopic(STRICT_TOPIC)).partitions[0]?.logEndOffset)
          expectThat(end === 20, `expected ${STRICT_TOPIC} to keep its 20 records, it has ${end}`)
          return {
            narration: `MIRRORING → FAILED, non-retryable: ${partition!.error}. ${destinationCluster} keeps all 20 records it had; an operator decides (fail over, or recreate the topic).`,
            target: target({ mirror, cluster: destinationCluster, topic: STRICT_TOPIC, partition: 0 }),
          }
        },
      ],
    }
  },
}
