import 'server-only'
import { topicPartitionName } from '@/lib/mirror/topic-partition'
import { truncationPlan, type TruncationPlanInput } from '@/lib/mirror/truncation'
import type { MirrorHost } from '@/server/cluster/ports'
import { type ClusterAccess } from '../engine-context'
import { EngineError } from '../errors'
import { alignmentFrom } from '../preparing/last-mirror-position'
import type { PlannedTruncation, TruncationPlanResult } from '../types'

/** The truncation plan a new mirror (or a start of topics) would apply; changes nothing. */
export async function planStart(ctx: ClusterAccess, input: { sourceCluster: string; destinationCluster: string; topics: string[]; mirror?: string }): Promise<TruncationPlanResult> {
  const { source, host } = ctx.clusters.cluster(input.sourceCluster, input.destinationCluster)
  const destinationClusterId = await host.clusterId()
  const sourceTopics = await ctx.clusters.reachSource(() => source.describeTopics(input.topics))
  const missing = input.topics.filter((topic) => !sourceTopics.some((described) => described.name === topic))
  if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${input.sourceCluster}: ${missing.join(', ')}`)
  const inputs: TruncationPlanInput[] = []
  const [destinationTopics, positions] = await Promise.all([
    host.describeTopics(sourceTopics.map((topic) => topic.name)),
    ctx.clusters.reachSource(() =>
      source.lastMirrorPositions(
        destinationClusterId,
        sourceTopics.flatMap((topic) => topic.partitions.map(({ partition }) => ({ topic: topic.name, partition }))),
      ),
    ),
  ])
  const sourceLogStart = new Map<string, number>()
  for (const topic of sourceTopics) {
    const destination = destinationTopics.find((candidate) => candidate.name === topic.name)
    for (const sourcePartition of topic.partitions) {
      const tp = { topic: topic.name, partition: sourcePartition.partition }
      sourceLogStart.set(topicPartitionName(tp), sourcePartition.logStartOffset)
      inputs.push({ ...tp, ...(await alignmentFrom(host, tp, positions.get(topicPartitionName(tp)) ?? null, sourcePartition, destination?.partitions.find((p) => p.partition === tp.partition))) })
    }
  }
  const plan = truncationPlan(inputs)
  return { mirror: input.mirror ?? 'plan', partitions: await markRebuilds(host, plan, destinationTopics.map((topic) => topic.name), sourceLogStart, input.destinationCluster) }
}

/**
 * On a destination that cannot truncate (MirrorHost.rebuildNeeded), the entries of each existing topic that
 * must be rebuilt say so: the whole topic goes, and every partition is mirrored again from the source's log start.
 */
async function markRebuilds(host: MirrorHost, plan: PlannedTruncation[], existing: string[], sourceLogStart: Map<string, number>, destinationCluster: string): Promise<PlannedTruncation[]> {
  if (!host.rebuildNeeded) return plan
  const rebuilt = new Set<string>()
  for (const topic of existing) {
    if (await host.rebuildNeeded(topic, plan.filter((entry) => entry.topic === topic))) rebuilt.add(topic)
  }
  return plan.map((entry) => {
    if (!rebuilt.has(entry.topic)) return entry
    const fetchOffset = sourceLogStart.get(topicPartitionName(entry)) ?? 0
    const removed = entry.recordsToRemove === 0 ? 'nothing diverges here' : `${entry.recordsToRemove} record${entry.recordsToRemove === 1 ? '' : 's'} from offset ${entry.truncateTo ?? 'the log start'} are lost`
    return {
      ...entry,
      fetchOffset,
      rebuild: true,
      emulation: `${destinationCluster} is a Kafka cluster, which no client can truncate: topic ${entry.topic} is deleted and created again (same partitions and configs), then mirrored from offset ${fetchOffset}; ${removed}.`,
    }
  })
}
