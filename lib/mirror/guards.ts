/**
 * Named pure predicates. The domain predicates answer questions about epochs, offsets and partitions;
 * GUARDS binds the names used in EVENT_TABLE (states.ts) to them, so the table holds no logic.
 */
import { LEADER_EPOCH_BUMP_INCREMENT, LEADER_EPOCH_BUMP_THRESHOLD, NON_RETRYABLE_ATTEMPT } from './constants'
import type { MirrorEvent } from './events'
import type { MirrorPartitionValue } from './partition'
import { type GuardName, type MirrorPartitionState } from './states'
import { STATE_METADATA } from './state-metadata'
import { isExpectedStoppingCompletion } from './stopping'
import { isDefinedEpochOffset, type EpochOffset } from './types'

// DOMAIN PREDICATES

/** A batch may be appended only when its epoch is not above the destination leader epoch (DLE ≥ SLE). */
export function isEpochCurrent(batchEpoch: number, leaderEpoch: number): boolean {
  return batchEpoch <= leaderEpoch
}

/**
 * A bump is due when an observed source epoch (batch or source metadata) is within
 * LEADER_EPOCH_BUMP_THRESHOLD of the destination leader epoch: `observedEpoch > leaderEpoch − 3`.
 */
export function needsProactiveEpochBump(observedEpoch: number, leaderEpoch: number): boolean {
  return observedEpoch > leaderEpoch - LEADER_EPOCH_BUMP_THRESHOLD
}

/**
 * The epoch to ask for: source epoch + LEADER_EPOCH_BUMP_INCREMENT, so that several source elections
 * fit before the next bump; never below the current leader epoch, because a bump never lowers it.
 */
export function epochBumpTarget(sourceEpoch: number, currentLeaderEpoch: number): number {
  return Math.max(currentLeaderEpoch, sourceEpoch + LEADER_EPOCH_BUMP_INCREMENT)
}

/** True when a fetch response says the source history diverged from what we fetched. */
export function hasDivergingEpoch(response: { readonly divergingEpoch?: EpochOffset | null }): boolean {
  const divergingEpoch = response.divergingEpoch
  return divergingEpoch != null && divergingEpoch.offset >= 0
}

/** The destination has everything the source has made visible to consumers. */
export function isCaughtUp(sourceHighWatermark: number, destinationHighWatermark: number): boolean {
  return destinationHighWatermark >= sourceHighWatermark
}

/** Automatic retries are allowed for this failure (not `NON_RETRYABLE_ATTEMPT`). */
export function isRetryable(partition: Pick<MirrorPartitionValue, 'retryAttempt'>): boolean {
  return partition.retryAttempt !== NON_RETRYABLE_ATTEMPT
}

/** An error or a retry count is recorded and not yet cleared by a success or an operator. */
export function hasFailureDetails(partition: Pick<MirrorPartitionValue, 'retryAttempt' | 'error'>): boolean {
  return partition.error !== null || partition.retryAttempt !== 0
}

/** Clients may not write to the topic in this state: everything but STOPPED. */
export function isReadOnly(state: MirrorPartitionState): boolean {
  return STATE_METADATA[state].readOnly
}

/** A fetcher should be running for the partition. */
export function isReadyForFetch(partition: Pick<MirrorPartitionValue, 'state'>): boolean {
  return partition.state === 'MIRRORING'
}

/**
 * A failed partition may be paused only if it failed while mirroring or pausing: resuming from PAUSED
 * goes straight to MIRRORING, which would skip an unfinished alignment, fencing or stop.
 */
export function isPauseSafeAfterFailure(partition: Pick<MirrorPartitionValue, 'state' | 'previousState' | 'stopping'>): boolean {
  if (partition.state !== 'FAILED' || partition.stopping !== null) return false
  return partition.previousState === 'MIRRORING' || partition.previousState === 'PAUSING' || partition.previousState === 'PAUSED'
}

/** The last mirror position exists and is not Kafka's (-1, -1) "no history". */
export function hasLastMirrorPosition(partition: Pick<MirrorPartitionValue, 'lastMirrorPosition'>): boolean {
  return isDefinedEpochOffset(partition.lastMirrorPosition)
}

// TABLE GUARDS

/** What guards may read besides the partition and the event: the topic's mirror configuration. */
export interface GuardContext {
  /** The destination topic's `mirror.support.unclean.leader.election`. */
  readonly mirrorSupportUncleanLeaderElection: boolean
}

export type Guard = (partition: MirrorPartitionValue, event: MirrorEvent, ctx: GuardContext) => boolean

// Typed (not `satisfies`) so that every guard has the uniform signature the table's evaluator calls.
export const GUARDS: Readonly<Record<GuardName, Guard>> = {
  isUncleanLeaderElectionSupported: (_partition, _event, ctx) => ctx.mirrorSupportUncleanLeaderElection,
  isBatchEpochAboveLeaderEpoch: (_partition, event) =>
    event.type === 'batchEpochExceeded' && !isEpochCurrent(event.batchEpoch, event.leaderEpoch),
  needsProactiveEpochBump: (_partition, event) =>
    event.type === 'epochBumpThresholdReached' && needsProactiveEpochBump(event.observedEpoch, event.leaderEpoch),
  isEpochBumpVisible: (partition, event) =>
    event.type === 'epochBumpCompleted' &&
    partition.requestedLeaderEpoch !== null &&
    event.leaderEpoch >= partition.requestedLeaderEpoch,
  hasFailureDetails: (partition) => hasFailureDetails(partition),
  hasPendingTruncation: (partition) => partition.pendingTruncation !== null,
  isExpectedStoppingStep: (partition, event) =>
    event.type === 'stoppingStepCompleted' && partition.stopping !== null && isExpectedStoppingCompletion(partition.stopping, event),
  isStoppingSequenceDone: (partition) => partition.stopping?.step === 'done',
  isRetryable: (partition) => isRetryable(partition),
  isPauseSafeAfterFailure: (partition) => isPauseSafeAfterFailure(partition),
}
