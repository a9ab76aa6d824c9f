import 'server-only'
import type { FailureCode } from '@/lib/mirror/failure-code'
import type { MirrorPartitionValue } from '@/lib/mirror/transition'
import type { PartitionRuntime } from '../types'
import type { PartitionChanges } from './partition-changes'

/** A partition's runtime as the engine first holds it: nothing fetched, nothing pending; its changes go to `changes`. */
export function newPartitionRuntime(
  changes: PartitionChanges,
  key: { mirror: string; topic: string; topicId: string; partition: number },
  value: MirrorPartitionValue,
  restored: { destinationLeaderEpoch?: number; failureCode?: FailureCode | null } = {},
): PartitionRuntime {
  return {
    mirror: key.mirror,
    topic: key.topic,
    topicId: key.topicId,
    partition: key.partition,
    value,
    failureCode: restored.failureCode ?? null,
    fetching: false,
    retryAt: null,
    retryStateEpoch: null,
    awaitingConvergence: false,
    needsRestore: false,
    stateDurable: true,
    sourceHighWatermark: null,
    oldestUnmirroredTimestamp: null,
    lastFetchAt: null,
    sourceObservedAt: null,
    destinationHighWatermark: 0,
    destinationLogEndOffset: 0,
    destinationLeaderEpoch: restored.destinationLeaderEpoch ?? 0,
    lastLagEvent: null,
    transitions: [],
    snapshot: null,
    snapshotStaleness: 'stale',
    changes,
  }
}
