/**
 * The per-partition value the state machine works on: an immutable record that `transition` returns
 * a changed copy of, and that the engine persists to `__mirror_state` before running any effect.
 */
import { NON_RETRYABLE_ATTEMPT } from './constants'
import type { MirrorPartitionState } from './states'
import type { StoppingProgress } from './stopping'
import type { TruncationDecision, TruncationReason } from './truncation'
import type { EpochOffset } from './types'

/** The last truncation applied to the partition (API.md `lastTruncation`). */
export interface LastTruncation {
  /** The log end offset after the truncation; records at and above it were removed. */
  readonly offset: number
  readonly removedRecords: number
  readonly at: number
  readonly reason: TruncationReason
}

export interface MirrorPartitionValue {
  readonly state: MirrorPartitionState
  /** +1 per accepted state change; in-state updates (failure details, progress) keep it. */
  readonly stateEpoch: number
  /** The state before the last state change; UNKNOWN when there was none. While FAILED: the state that failed. */
  readonly previousState: MirrorPartitionState
  /** When the current state was entered (injected clock, epoch milliseconds). */
  readonly stateSince: number
  /**
   * 0 when healthy; n ≥ 1 after the n-th consecutive failure (kept through retries until a fetch
   * succeeds, the partition pauses or stops, or an operator acts); -1 for a non-retryable failure.
   */
  readonly retryAttempt: number
  /** The last failure's message; kept with `retryAttempt` and cleared with it. */
  readonly error: string | null
  /** The position recorded by this partition's last STOPPING (for the other cluster's failback). */
  readonly lastMirrorPosition: EpochOffset | null
  readonly lastTruncation: LastTruncation | null
  /** ULE truncation decided but not yet reported complete; a retry or restart runs it again. */
  readonly pendingTruncation: TruncationDecision | null
  /** The minimum leader epoch EPOCH_FENCING waits for; kept through FAILED so a retry asks again. */
  readonly requestedLeaderEpoch: number | null
  /** STOPPING progress; kept once STOPPED (so a failed STOPPED replays nothing), cleared by PREPARING. */
  readonly stopping: StoppingProgress | null
  /**
   * While FAILED because the source's history diverged and the topic may not truncate (KIP-1279.md §3.5): where
   * it diverges and what a truncation would cut. Absent otherwise (records written before it have none).
   */
  readonly divergence?: Divergence | null
}

/** Where the source's history leaves the destination's log, and what truncating to it would cut. */
export interface Divergence {
  /** The source's leader epoch the fetch answer named as diverging (KIP-320), and the offset where it ends. */
  readonly epoch: number
  readonly offset: number
  /** Where the destination's log would be cut (its records from here on are not the source's); null: all of it. */
  readonly truncateTo: number | null
  /** Records of the destination's log a truncation would remove. */
  readonly recordsToCut: number
  /** The destination's log end offset when the divergence was found. */
  readonly logEndOffset: number
}

export type MirrorPartitionPatch = Partial<MirrorPartitionValue>

/** A partition that has never been seen: UNKNOWN, epoch 0, no history. */
export function createMirrorPartition(now: number): MirrorPartitionValue {
  return {
    state: 'UNKNOWN',
    stateEpoch: 0,
    previousState: 'UNKNOWN',
    stateSince: now,
    retryAttempt: 0,
    error: null,
    lastMirrorPosition: null,
    lastTruncation: null,
    pendingTruncation: null,
    requestedLeaderEpoch: null,
    stopping: null,
  }
}

/**
 * A copy of `prev` with `patch` applied. Generic so that the engine's own fields (topic, partition,
 * observed offsets) travel through transitions untouched.
 */
export function withChanges<P extends MirrorPartitionValue>(prev: P, patch: MirrorPartitionPatch): P {
  return { ...prev, ...patch }
}

/** Fields that hold failure details; cleared together. */
export const CLEARED_FAILURE: MirrorPartitionPatch = { retryAttempt: 0, error: null }

export function isNonRetryable(partition: Pick<MirrorPartitionValue, 'retryAttempt'>): boolean {
  return partition.retryAttempt === NON_RETRYABLE_ATTEMPT
}
