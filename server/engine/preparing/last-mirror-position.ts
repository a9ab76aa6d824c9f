import 'server-only'
import type { MirrorEvent } from '@/lib/mirror/events'
import { reverseMirrorVerdict } from '@/lib/mirror/mirror-loop'
import { topicPartitionName } from '@/lib/mirror/topic-partition'
import type { TruncationPlanInput } from '@/lib/mirror/truncation'
import { isClusterError, type LastMirrorPosition, type MirrorHost, type TopicPartition } from '@/server/cluster/ports'
import { type ClusterAccess } from '../engine-context'
import type { MirrorDefinition, PartitionRuntime } from '../types'

/** What decideTruncation needs beyond the partition's name. */
export type AlignmentInput = Omit<TruncationPlanInput, 'topic' | 'partition'>

/**
 * PREPARING's lookup (KIP-1279.md §3.4), the answer of the table's lookUpLastMirrorPosition effect: the
 * source is still the cluster the mirror was created against, it does not mirror this topic back from us
 * (a loop) or has stopped doing so, and the source partition is known; then the alignment input.
 */
export async function lookUpLastMirrorPosition(ctx: ClusterAccess, definition: MirrorDefinition, runtime: PartitionRuntime): Promise<MirrorEvent> {
  const { source, host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  const tp = { topic: runtime.topic, partition: runtime.partition }
  const destinationClusterId = await host.clusterId()
  const sourceClusterId = await source.clusterId()
  if (sourceClusterId !== definition.sourceClusterId) {
    return { type: 'sourceClusterIdChanged', expectedClusterId: definition.sourceClusterId, actualClusterId: sourceClusterId }
  }
  const verdict = reverseMirrorVerdict(await source.listHostedMirrors({ topics: [runtime.topic] }), destinationClusterId, tp)
  if (verdict.kind === 'loop') {
    return { type: 'mirrorLoopDetected', detail: `mirror ${verdict.mirror} on ${definition.sourceCluster} mirrors ${runtime.topic} from this cluster (${verdict.state})` }
  }
  if (verdict.kind === 'notStopped') {
    return { type: 'failed', code: 'REVERSE_MIRROR_NOT_STOPPED', error: `mirror ${verdict.mirror} on ${definition.sourceCluster} has not stopped for partition ${runtime.topic}-${runtime.partition} (${verdict.state})`, retryable: true }
  }
  const sourcePartition = await source.describePartition(tp).catch((error: unknown) => {
    if (isClusterError(error, 'NOT_FOUND')) return null
    throw error
  })
  if (!sourcePartition) {
    // Unknown is not empty: without the source partition's log start a full truncation could erase data.
    return { type: 'failed', code: 'SOURCE_PARTITION_UNKNOWN', error: `source partition ${runtime.topic}-${runtime.partition} is not known to ${definition.sourceCluster} yet`, retryable: true }
  }
  const input = await alignmentInput(ctx, definition, tp, destinationClusterId)
  return { type: 'lastMirrorPositionFound', ...input }
}

async function alignmentInput(ctx: ClusterAccess, definition: MirrorDefinition, tp: TopicPartition, destinationClusterId: string): Promise<AlignmentInput> {
  const { source, host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  const positions = await source.lastMirrorPositions(destinationClusterId, [tp])
  const absent = (error: unknown) => {
    if (isClusterError(error, 'NOT_FOUND')) return undefined
    throw error
  }
  // One partition each, not its whole topic: PREPARING runs per partition, and a 1,000-partition topic
  // described 1,000 times made starting a large mirror quadratic.
  const sourcePartition = await source.describePartition(tp).catch(absent)
  const destinationPartition = await host.describePartition(tp).catch(absent)
  return alignmentFrom(host, tp, positions.get(topicPartitionName(tp)) ?? null, sourcePartition, destinationPartition)
}

/** What decideTruncation needs, from the last mirror position and both sides' descriptions (PREPARING and the start plan). */
export async function alignmentFrom(
  host: MirrorHost,
  tp: TopicPartition,
  lastMirrorPosition: LastMirrorPosition | null,
  sourcePartition: { logStartOffset: number } | undefined,
  destinationPartition: { logStartOffset: number; logEndOffset: number } | undefined,
): Promise<AlignmentInput> {
  const local = lastMirrorPosition && destinationPartition ? await localEndOffsetForEpoch(host, tp, lastMirrorPosition.epoch, destinationPartition.logEndOffset) : null
  return {
    lastMirrorPosition: lastMirrorPosition ? { epoch: lastMirrorPosition.epoch, offset: lastMirrorPosition.offset } : null,
    localEndOffsetForEpoch: local ? { epoch: local.leaderEpoch, offset: local.endOffset } : null,
    logStartOffset: destinationPartition?.logStartOffset ?? 0,
    logEndOffset: destinationPartition?.logEndOffset ?? 0,
    sourceLogStartOffset: sourcePartition?.logStartOffset ?? 0,
  }
}

/**
 * The local end of the last mirror epoch. Kafka answers "undefined" for an epoch above every local one: the whole
 * local log then precedes the recorded position, so its history ends where the latest local epoch ends (the log
 * end), not nowhere. Only then is the latest epoch asked for; an undefined answer for an epoch the log has passed
 * (a host that does not answer as Kafka does) stays undefined.
 */
async function localEndOffsetForEpoch(host: MirrorHost, tp: TopicPartition, epoch: number, logEndOffset: number): Promise<{ leaderEpoch: number; endOffset: number }> {
  const answer = await host.endOffsetForEpoch(tp, epoch)
  if (answer.leaderEpoch >= 0) return answer
  const latestEpoch = await host.latestEpoch(tp)
  return latestEpoch >= 0 && latestEpoch < epoch ? { leaderEpoch: latestEpoch, endOffset: logEndOffset } : answer
}
