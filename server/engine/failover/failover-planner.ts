import 'server-only'
import { splitBatches } from '@/lib/log/record-batch'
import { rpoObjectiveOf, withRpoGate } from '@/lib/failover/rpo'
import { lastFetchReading } from '@/lib/mirror/at-risk'
import { buildFailoverPlan, type ConsumerGroupPosition, type FailoverPartitionInput, type FailoverPreflight } from '@/lib/mirror/failover-plan'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import type { GroupOffsets, SourceCluster, TopicPartition } from '@/server/cluster/ports'
import { TimeSlice } from '@/server/util/cooperative'
import { withTimeout } from '@/server/util/with-timeout'
import { selectPartitions } from '../commands/topic-commands'
import { type ClusterAccess, type EngineClock, type PartitionStore } from '../engine-context'

/** A failover's preflight asks a source that may be down: it answers without it rather than wait. */
const PREFLIGHT_SOURCE_TIMEOUT_MS = 5_000

/**
 * The failover plan of the selected partitions (lib/mirror/failover-plan.ts decides; this gathers its
 * input): both sides' log ends, the age of what is not mirrored yet, open transactions and committed
 * offsets per consumer group. Changes nothing.
 */
export async function failoverPlan(ctx: ClusterAccess & EngineClock & PartitionStore, mirrorName: string, topics?: string[]): Promise<FailoverPreflight> {
  const mirror = ctx.state.require(mirrorName)
  const { definition } = mirror
  const runtimes = selectPartitions(mirror, topics).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
  const { source: linkedSource, host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  const topicNames = [...new Set(runtimes.map((runtime) => runtime.topic))]
  const linkedTopics = await withTimeout(linkedSource.describeTopics(topicNames), PREFLIGHT_SOURCE_TIMEOUT_MS).catch(() => null)
  // The mirror's link does not answer: Mirrorboard's own view of the source may (a cut link, not a dead cluster),
  // and it is what the partition page and the mirror's lower bounds read (lag/source-observer.ts), so the plan
  // counts the records at risk from it too rather than answer "unknown" beside them.
  const observer = linkedTopics === null ? ctx.clusters.observer(definition.sourceCluster) : undefined
  const observedTopics = observer === undefined ? null : await withTimeout(observer.describeTopics(topicNames), PREFLIGHT_SOURCE_TIMEOUT_MS).catch(() => null)
  const source = observedTopics !== null && observer !== undefined ? observer : linkedSource
  const sourceTopics = linkedTopics ?? observedTopics
  const sourceGroups = sourceTopics ? await withTimeout(source.listGroupOffsets(), PREFLIGHT_SOURCE_TIMEOUT_MS).catch(() => null) : null
  const destinationTopics = await host.describeTopics(topicNames)
  const destinationGroups = await host.listGroupOffsets()
  // Looked up per partition through maps: a find() over a topic's partitions for each of 10,000 partitions
  // (and again for every consumer group) took most of a second before the failover was even accepted.
  const destinationPartitions = partitionsByTopicPartition(destinationTopics)
  const sourcePartitions = sourceTopics ? partitionsByTopicPartition(sourceTopics) : null
  const sourceOffsets = committedOffsets(sourceGroups ?? [])
  const destinationOffsets = committedOffsets(destinationGroups)
  const groupIds = [...new Set([...(sourceGroups ?? []), ...destinationGroups].map((group) => group.groupId))]
  const partitions: FailoverPartitionInput[] = []
  // Awaits that resolve at once are microtasks: without turns, 10,000 partitions were one stall of the event loop.
  const slice = new TimeSlice()
  for (const runtime of runtimes) {
    const turn = slice.maybeYield()
    if (turn) await turn
    const tp = { topic: runtime.topic, partition: runtime.partition }
    const destination = destinationPartitions.get(tp)
    const sourcePartition = sourcePartitions?.get(tp)
    const destinationLogEndOffset = destination?.logEndOffset ?? 0
    const oldestUnmirroredTimestamp =
      sourcePartition && sourcePartition.logEndOffset > destinationLogEndOffset ? await sourceTimestampAt(source, tp, destinationLogEndOffset) : null
    const consumerGroups: ConsumerGroupPosition[] = []
    for (const groupId of groupIds) {
      const sourceCommittedOffset = sourceGroups === null ? null : (sourceOffsets.get(groupId)?.get(tp) ?? null)
      const destinationCommittedOffset = destinationOffsets.get(groupId)?.get(tp) ?? null
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
      lastFetch: lastFetchReading({
        state: runtime.value.state,
        now: ctx.now(),
        sourceHighWatermark: runtime.sourceHighWatermark,
        destinationHighWatermark: runtime.destinationHighWatermark,
        oldestUnmirroredTimestamp: runtime.oldestUnmirroredTimestamp,
        lastFetchAt: runtime.lastFetchAt,
        sourceObservedAt: runtime.sourceObservedAt,
      }),
      openTransactions: await host.openTransactions(tp),
      consumerGroups,
    })
  }
  const plan = buildFailoverPlan({ mirror: mirrorName, now: ctx.now(), sourceReachable: linkedTopics !== null, sourceReadDirectly: observedTopics !== null, partitions })
  return withRpoGate(plan, rpoObjectiveOf(definition.config.objectives))
}

/** Each described partition by (topic, partition). */
function partitionsByTopicPartition<P extends { partition: number }>(topics: ReadonlyArray<{ name: string; partitions: readonly P[] }>): TopicPartitionMap<P> {
  const map = new TopicPartitionMap<P>()
  for (const topic of topics) for (const partition of topic.partitions) map.set({ topic: topic.name, partition: partition.partition }, partition)
  return map
}

/** Per group, its committed offset by (topic, partition); the first group of an id and the first offset of a partition win, as find() did. */
function committedOffsets(groups: readonly GroupOffsets[]): Map<string, TopicPartitionMap<number>> {
  const byGroup = new Map<string, TopicPartitionMap<number>>()
  for (const group of groups) {
    if (byGroup.has(group.groupId)) continue
    const offsets = new TopicPartitionMap<number>()
    for (const { topic, partition, offset } of group.offsets) if (offsets.get({ topic, partition }) === undefined) offsets.set({ topic, partition }, offset)
    byGroup.set(group.groupId, offsets)
  }
  return byGroup
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
