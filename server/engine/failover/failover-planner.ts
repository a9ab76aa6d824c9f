import 'server-only'
import { splitBatches } from '@/lib/log/record-batch'
import { buildFailoverPlan, type ConsumerGroupPosition, type FailoverPartitionInput, type FailoverPreflight } from '@/lib/mirror/failover-plan'
import type { SourceCluster, TopicPartition } from '@/server/cluster/ports'
import { withTimeout } from '@/server/util/with-timeout'
import { selectPartitions } from '../commands/topic-commands'
import type { EngineContext } from '../engine-context'

/** A failover's preflight asks a source that may be down: it answers without it rather than wait. */
const PREFLIGHT_SOURCE_TIMEOUT_MS = 5_000

/**
 * The failover plan of the selected partitions (lib/mirror/failover-plan.ts decides; this gathers its
 * input): both sides' log ends, the age of what is not mirrored yet, open transactions and committed
 * offsets per consumer group. Changes nothing.
 */
export async function failoverPlan(ctx: EngineContext, mirrorName: string, topics?: string[]): Promise<FailoverPreflight> {
  const mirror = ctx.state.require(mirrorName)
  const { definition } = mirror
  const runtimes = selectPartitions(mirror, topics).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
  const { source, host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  const topicNames = [...new Set(runtimes.map((runtime) => runtime.topic))]
  const sourceTopics = await withTimeout(source.describeTopics(topicNames), PREFLIGHT_SOURCE_TIMEOUT_MS).catch(() => null)
  const sourceGroups = sourceTopics ? await withTimeout(source.listGroupOffsets(), PREFLIGHT_SOURCE_TIMEOUT_MS).catch(() => null) : null
  const destinationTopics = await host.describeTopics(topicNames)
  const destinationGroups = await host.listGroupOffsets()
  const partitions: FailoverPartitionInput[] = []
  for (const runtime of runtimes) {
    const tp = { topic: runtime.topic, partition: runtime.partition }
    const destination = destinationTopics.find((topic) => topic.name === runtime.topic)?.partitions.find((p) => p.partition === runtime.partition)
    const sourcePartition = sourceTopics?.find((topic) => topic.name === runtime.topic)?.partitions.find((p) => p.partition === runtime.partition)
    const destinationLogEndOffset = destination?.logEndOffset ?? 0
    const oldestUnmirroredTimestamp =
      sourcePartition && sourcePartition.logEndOffset > destinationLogEndOffset ? await sourceTimestampAt(source, tp, destinationLogEndOffset) : null
    const groupIds = new Set([...(sourceGroups ?? []), ...destinationGroups].map((group) => group.groupId))
    const consumerGroups: ConsumerGroupPosition[] = []
    for (const groupId of groupIds) {
      const find = (groups: typeof destinationGroups | null) =>
        groups?.find((group) => group.groupId === groupId)?.offsets.find((o) => o.topic === tp.topic && o.partition === tp.partition)?.offset ?? null
      const sourceCommittedOffset = find(sourceGroups)
      const destinationCommittedOffset = find(destinationGroups)
      if (sourceCommittedOffset === null && destinationCommittedOffset === null) continue
      consumerGroups.push({ groupId, sourceCommittedOffset, destinationCommittedOffset })
    }
    partitions.push({
      topic: runtime.topic,
      partition: runtime.partition,
      state: runtime.value.state,
      destinationLogEndOffset,
      lastMirrorPosition: runtime.value.lastMirrorPosition,
      source: sourcePartition ? { logEndOffset: sourcePartition.logEndOffset, oldestUnmirroredTimestamp } : null,
      openTransactions: await host.openTransactions(tp),
      consumerGroups,
    })
  }
  return buildFailoverPlan({ mirror: mirrorName, now: ctx.now(), sourceReachable: sourceTopics !== null, partitions })
}

/** The timestamp of the source record at `offset` (the oldest not mirrored yet), or null when it cannot be read. */
async function sourceTimestampAt(source: SourceCluster, tp: TopicPartition, offset: number): Promise<number | null> {
  try {
    const [result] = await withTimeout(source.fetch([{ ...tp, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: 1 }], { maxBytes: 1 }), PREFLIGHT_SOURCE_TIMEOUT_MS)
    if (!result?.ok || result.records.byteLength === 0) return null
    const [first] = splitBatches(result.records)
    return first ? first.header.baseTimestamp : null
  } catch {
    return null
  }
}
