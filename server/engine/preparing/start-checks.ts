import 'server-only'
import { findMirrorLoop } from '@/lib/mirror/mirror-loop'
import type { MirrorHost, SourceCluster, TopicDescription } from '@/server/cluster/ports'
import { type ClusterAccess, type PartitionStore } from '../engine-context'
import { EngineError, mirrorLoopRefusal } from '../errors'

/**
 * A topic can be (re)started when no other mirror on the destination owns it, with the same topic id on
 * both sides, and no loop. The one copy of these checks: start, create and their dry runs all call it.
 */
export async function assertTopicsStartable(ctx: ClusterAccess & PartitionStore, mirrorName: string, destinationCluster: string, topics: TopicDescription[], source: SourceCluster): Promise<void> {
  const host = ctx.clusters.cluster(destinationCluster).host
  await assertNoMirrorLoop(ctx, source, host, topics.map((topic) => topic.name))
  for (const topic of topics) {
    const [existing] = await host.describeTopics([topic.name])
    if (existing && existing.topicId !== topic.topicId) {
      throw new EngineError('CONFLICT', `topic ${topic.name} exists on ${destinationCluster} with a different topic id`)
    }
    for (const other of ctx.state.all()) {
      // This mirror's own partitions are the start's preconditions (planStartOrRefuse), checked before.
      if (other.definition.destinationCluster !== destinationCluster || other.definition.name === mirrorName) continue
      const busy = other.partitions.ofTopic(topic.name).filter((runtime) => runtime.value.state !== 'STOPPED' && runtime.value.state !== 'UNKNOWN')
      if (busy.length === 0) continue
      throw new EngineError('CONFLICT', `topic ${topic.name} is mirrored by ${other.definition.name}`)
    }
  }
}

/**
 * Refuses a start that would mirror a topic back to a cluster that is still mirroring it from us
 * (KIP-1279.md §11 #19), before anything is changed; PREPARING checks again for races.
 */
async function assertNoMirrorLoop(ctx: ClusterAccess, source: SourceCluster, host: MirrorHost, topics: string[]): Promise<void> {
  const destinationClusterId = await host.clusterId()
  const hosted = await ctx.clusters.reachSource(() => source.listHostedMirrors())
  const loop = findMirrorLoop(hosted, destinationClusterId, topics)
  if (loop) throw mirrorLoopRefusal(loop)
}
