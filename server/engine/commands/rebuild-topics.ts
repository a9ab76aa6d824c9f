import 'server-only'
import type { TopicDescription } from '@/server/cluster/ports'
import { type ClusterAccess, type EngineLog } from '../engine-context'
import { EngineError } from '../errors'
import type { MirrorDefinition } from '../types'
import { planStart } from './start-plan'

/**
 * A destination that cannot truncate a log (a Kafka cluster, by emulation) rebuilds the topics the start's
 * truncation plan marks `rebuild` — the same plan its dry run answered — before any of their partitions
 * starts: PREPARING then finds an empty mirror topic and mirrors it from the source's log start.
 */
export async function rebuildPlannedTopics(ctx: ClusterAccess & EngineLog, definition: MirrorDefinition, topics: readonly TopicDescription[], skipped: ReadonlyArray<{ topic: string }>): Promise<void> {
  const { host } = ctx.clusters.cluster(definition.destinationCluster)
  if (!host.rebuildTopic || topics.length === 0) return
  const plan = await planStart(ctx, { sourceCluster: definition.sourceCluster, destinationCluster: definition.destinationCluster, topics: topics.map((topic) => topic.name), mirror: definition.name })
  for (const topic of topics) {
    const entries = plan.partitions.filter((entry) => entry.topic === topic.name && entry.rebuild)
    if (entries.length === 0) continue
    // A rebuild takes the whole topic: partitions of it this mirror still runs would lose their records.
    if (skipped.some((partition) => partition.topic === topic.name)) {
      throw new EngineError('INVALID_MIRROR_STATE', `topic ${topic.name} must be rebuilt on ${definition.destinationCluster}, but some of its partitions are still mirrored: stop them first`, { details: { topic: topic.name } })
    }
    await host.rebuildTopic(topic.name, { topicId: topic.topicId, mirror: definition.name, plan: entries })
    ctx.log('topic rebuilt', { mirror: definition.name, topic: topic.name, recordsRemoved: entries.reduce((sum, entry) => sum + entry.recordsToRemove, 0) })
  }
}
