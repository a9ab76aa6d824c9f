import 'server-only'
import { topicPartitionName } from '@/lib/mirror/topic-partition'
import { truncationPlan, type TruncationPlanInput } from '@/lib/mirror/truncation'
import type { EngineContext } from '../engine-context'
import { EngineError } from '../errors'
import { alignmentFrom } from '../preparing/last-mirror-position'
import type { TruncationPlanResult } from '../types'

/** The truncation plan a new mirror (or a start of topics) would apply; changes nothing. */
export async function planStart(ctx: EngineContext, input: { sourceCluster: string; destinationCluster: string; topics: string[]; mirror?: string }): Promise<TruncationPlanResult> {
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
  for (const topic of sourceTopics) {
    const destination = destinationTopics.find((candidate) => candidate.name === topic.name)
    for (const sourcePartition of topic.partitions) {
      const tp = { topic: topic.name, partition: sourcePartition.partition }
      inputs.push({ ...tp, ...(await alignmentFrom(host, tp, positions.get(topicPartitionName(tp)) ?? null, sourcePartition, destination?.partitions.find((p) => p.partition === tp.partition))) })
    }
  }
  return { mirror: input.mirror ?? 'plan', partitions: truncationPlan(inputs) }
}
