import 'server-only'
import type { MirrorPartition } from '@/lib/mirror/transition'
import type { PartitionRuntime } from '../types'

/** A partition's runtime as the engine first holds it: nothing fetched, nothing pending, no lock held. */
export function newPartitionRuntime(mirror: string, topic: string, topicId: string, partition: number, value: MirrorPartition): PartitionRuntime {
  return {
    mirror,
    topic,
    topicId,
    partition,
    value,
    fetching: false,
    retryAt: null,
    retryStateEpoch: null,
    awaitingConvergence: false,
    needsRestore: false,
    lock: Promise.resolve(),
    sourceHighWatermark: null,
    oldestUnmirroredTimestamp: null,
    lastFetchAt: null,
    destinationHighWatermark: 0,
    destinationLogEndOffset: 0,
    destinationLeaderEpoch: 0,
    lastLagEvent: null,
    transitions: [],
    lastSnapshot: null,
  }
}
