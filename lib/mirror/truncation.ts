/**
 * Where a mirror partition's log is cut back to, decided from plain values. Looking things up
 * (the last mirror position on the source, the local epoch cache) and executing the truncation are
 * effects that the engine runs; this module only decides.
 *
 * Offsets are counted, not records: `recordsToRemove` is the number of offsets removed (data records,
 * control records and compaction gaps), which is what an operator compares against offsets elsewhere.
 */
import { MirrorError } from './errors'
import { isDefinedEpochOffset, type EpochOffset } from './types'

// TYPES

/** Why a partition is truncated: shown to operators as the truncation's reason. */
export type TruncationReason =
  /** No common history with the source is known: the log is rebuilt from the source's log start. */
  | 'fromScratch'
  /** The source recorded a last mirror position for us: our tail beyond the common history goes. */
  | 'failback'
  /** The source history changed under mirrored data (unclean leader election on the source). */
  | 'uncleanLeaderElection'

/** Which case of the decision applied; every case is listed on the deciding function. */
export type TruncationBasis =
  | 'noLastMirrorPosition'
  | 'noCommonEpoch'
  | 'lastMirrorOffset'
  | 'localEpochEndOffset'
  | 'logEndOffset'
  | 'belowLogStartOffset'
  | 'divergingEpochUndefined'
  | 'divergingEpochEndOffset'
  | 'localEpochBelowDivergingEpoch'

export interface TruncationDecision {
  /**
   * Records at and after this offset are removed; it becomes the log end offset. `null` means the
   * whole log is removed and restarted empty at `fetchOffset` (Kafka's truncateFullyAndStartAt).
   */
  readonly truncateTo: number | null
  /** Where fetching from the source resumes after the truncation (the new log end offset). */
  readonly fetchOffset: number
  /** Offsets removed from the local log (0 when the log already ends at or before the point). */
  readonly recordsToRemove: number
  readonly reason: TruncationReason
  readonly basis: TruncationBasis
  /**
   * False when the divergence may go deeper (KIP-320: our nearest epoch is older than the source's
   * diverging epoch); the next fetch then reports the remaining divergence.
   */
  readonly truncationCompleted: boolean
}

/** Inputs of the PREPARING (log alignment) decision, KIP-1279.md §3.4. */
export interface AlignmentTruncationInput {
  /**
   * The last mirror position (E, O) the source recorded when it stopped mirroring from this cluster;
   * `null` or (-1, -1) when it has none (or does not support the lookup).
   */
  readonly lastMirrorPosition: EpochOffset | null
  /**
   * The local endOffsetForEpoch(E) lookup: the largest local epoch ≤ E and the offset where it ends.
   * `null` or (-1, -1) when the local epoch cache has no epoch ≤ E. Ignored without a last mirror position.
   * Use floor semantics (`endOffsetForEpoch` below): Kafka's cache answers (-1, -1) when E is above
   * every local epoch, which reads here as "no common epoch" and empties the log — safe, but it throws
   * away history both clusters share.
   */
  readonly localEndOffsetForEpoch: EpochOffset | null
  readonly logStartOffset: number
  readonly logEndOffset: number
  /** Where the source's log starts: a log rebuilt from scratch restarts here. */
  readonly sourceLogStartOffset: number
}

/** Inputs of the ULE decision: a fetch response's diverging epoch and the matching local lookup. */
export interface DivergenceTruncationInput {
  /** From the fetch response: the source's largest epoch ≤ our lastFetchedEpoch, and where it ends. */
  readonly divergingEpoch: EpochOffset
  /** The local endOffsetForEpoch(divergingEpoch.epoch) lookup; `null` or (-1, -1) when none. */
  readonly localEndOffsetForEpoch: EpochOffset | null
  readonly logStartOffset: number
  readonly logEndOffset: number
}

/** One entry of API.md's truncation plan (dry runs of start / create mirror). */
export interface TruncationPlanEntry {
  readonly topic: string
  readonly partition: number
  readonly truncateTo: number | null
  readonly recordsToRemove: number
  readonly lastMirrorPosition: EpochOffset | null
  readonly fetchOffset: number
  readonly reason: TruncationReason
  readonly basis: TruncationBasis
}

export interface TruncationPlanInput extends AlignmentTruncationInput {
  readonly topic: string
  readonly partition: number
}

/** One entry of a leader epoch cache: `epoch` starts at `startOffset`. */
export interface LeaderEpochEntry {
  readonly epoch: number
  readonly startOffset: number
}

// DECISIONS

/**
 * PREPARING: cut the local log back to the history it shares with the source (KIP-1279.md §3.4).
 *
 * Cases, in order:
 * 1. No last mirror position (`null` or (-1, -1)): the source never mirrored from us, so nothing local
 *    is known to be shared. Remove the whole log and restart at the source's log start
 *    (basis `noLastMirrorPosition`, reason `fromScratch`).
 * 2. A last mirror position (E, O) but no local epoch ≤ E: every local record was written in a later
 *    epoch, after the point both clusters agree on. Remove the whole log, restart at the source's log
 *    start (`noCommonEpoch`, `failback`).
 * 3. Otherwise the point is min(O, localEndOffsetForEpoch(E)): O bounds what the source had mirrored
 *    from us; the epoch end bounds what we wrote in epochs the source knows (`lastMirrorOffset` when O
 *    is the smaller, `localEpochEndOffset` otherwise).
 *    a. The point is at or beyond our log end: nothing to remove, keep fetching from the log end
 *       (`logEndOffset`).
 *    b. The point is below our log start (retention removed the shared part): remove the whole log and
 *       restart at the point, or at the source's log start if that is later (`belowLogStartOffset`).
 *    c. Else truncate to the point.
 * Records below the point are never touched.
 */
export function decideTruncation(input: AlignmentTruncationInput): TruncationDecision {
  assertLogBounds(input.logStartOffset, input.logEndOffset)
  assertOffset('sourceLogStartOffset', input.sourceLogStartOffset)
  const { lastMirrorPosition, localEndOffsetForEpoch, logStartOffset, logEndOffset, sourceLogStartOffset } = input

  if (!isDefinedEpochOffset(lastMirrorPosition)) {
    return truncateFully('fromScratch', 'noLastMirrorPosition', logStartOffset, logEndOffset, sourceLogStartOffset)
  }
  if (!isDefinedEpochOffset(localEndOffsetForEpoch)) {
    return truncateFully('failback', 'noCommonEpoch', logStartOffset, logEndOffset, sourceLogStartOffset)
  }
  if (localEndOffsetForEpoch.epoch > lastMirrorPosition.epoch) {
    throw new MirrorError(
      'VALIDATION_FAILED',
      `endOffsetForEpoch(${lastMirrorPosition.epoch}) answered epoch ${localEndOffsetForEpoch.epoch}, which is above the requested epoch`,
    )
  }
  const basis: TruncationBasis =
    lastMirrorPosition.offset <= localEndOffsetForEpoch.offset ? 'lastMirrorOffset' : 'localEpochEndOffset'
  const point = Math.min(lastMirrorPosition.offset, localEndOffsetForEpoch.offset)
  return truncateToPoint('failback', basis, point, logStartOffset, logEndOffset, sourceLogStartOffset, true)
}

/**
 * ULE_LOG_TRUNCATION: the source reported a diverging epoch (KIP-320 rules, as Kafka's
 * `AbstractFetcherThread.getOffsetTruncationState`).
 *
 * Cases, in order:
 * 1. The diverging epoch is undefined (the source has no epoch ≤ our last fetched epoch): truncate to
 *    its end offset (`divergingEpochUndefined`).
 * 2. We have no epoch ≤ the diverging epoch: truncate to the source's end offset for it
 *    (`noCommonEpoch`).
 * 3. Our largest epoch ≤ the diverging epoch is older than it: truncate to where our epoch ends; the
 *    divergence may go deeper, so the decision is not complete (`localEpochBelowDivergingEpoch`).
 * 4. Both have the diverging epoch: truncate to the smaller of the two end offsets
 *    (`divergingEpochEndOffset`).
 * In every case a point at or beyond our log end removes nothing (`logEndOffset`), and a point below
 * our log start removes the whole log and restarts there (`belowLogStartOffset`).
 */
export function decideDivergingEpochTruncation(input: DivergenceTruncationInput): TruncationDecision {
  assertLogBounds(input.logStartOffset, input.logEndOffset)
  const { divergingEpoch, localEndOffsetForEpoch, logStartOffset, logEndOffset } = input
  assertOffset('divergingEpoch.offset', divergingEpoch.offset)

  if (divergingEpoch.epoch < 0) {
    return truncateToPoint('uncleanLeaderElection', 'divergingEpochUndefined', divergingEpoch.offset, logStartOffset, logEndOffset, 0, true)
  }
  if (!isDefinedEpochOffset(localEndOffsetForEpoch)) {
    return truncateToPoint('uncleanLeaderElection', 'noCommonEpoch', divergingEpoch.offset, logStartOffset, logEndOffset, 0, true)
  }
  if (localEndOffsetForEpoch.epoch > divergingEpoch.epoch) {
    throw new MirrorError(
      'VALIDATION_FAILED',
      `endOffsetForEpoch(${divergingEpoch.epoch}) answered epoch ${localEndOffsetForEpoch.epoch}, which is above the requested epoch`,
    )
  }
  if (localEndOffsetForEpoch.epoch < divergingEpoch.epoch) {
    return truncateToPoint(
      'uncleanLeaderElection',
      'localEpochBelowDivergingEpoch',
      localEndOffsetForEpoch.offset,
      logStartOffset,
      logEndOffset,
      0,
      false,
    )
  }
  const point = Math.min(localEndOffsetForEpoch.offset, divergingEpoch.offset)
  return truncateToPoint('uncleanLeaderElection', 'divergingEpochEndOffset', point, logStartOffset, logEndOffset, 0, true)
}

/** API.md's truncation plan: one entry per partition, ordered by topic then partition. */
export function truncationPlan(partitions: readonly TruncationPlanInput[]): TruncationPlanEntry[] {
  return [...partitions]
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
    .map((input) => {
      const decision = decideTruncation(input)
      return {
        topic: input.topic,
        partition: input.partition,
        truncateTo: decision.truncateTo,
        recordsToRemove: decision.recordsToRemove,
        lastMirrorPosition: isDefinedEpochOffset(input.lastMirrorPosition) ? input.lastMirrorPosition : null,
        fetchOffset: decision.fetchOffset,
        reason: decision.reason,
        basis: decision.basis,
      }
    })
}

/**
 * Kafka's endOffsetForEpoch (KIP-101) over a leader epoch cache: the largest epoch ≤ `requestedEpoch`
 * and the offset where it ends (the start of the next epoch, or the log end for the latest epoch).
 * `null` when the cache has no epoch ≤ `requestedEpoch`. Entries must be ordered with strictly
 * increasing epochs and non-decreasing start offsets.
 */
export function endOffsetForEpoch(
  entries: readonly LeaderEpochEntry[],
  requestedEpoch: number,
  logEndOffset: number,
): EpochOffset | null {
  assertOffset('logEndOffset', logEndOffset)
  for (let i = 1; i < entries.length; i++) {
    const previous = entries[i - 1]
    const current = entries[i]
    if (previous !== undefined && current !== undefined) {
      if (current.epoch <= previous.epoch || current.startOffset < previous.startOffset) {
        throw new MirrorError('VALIDATION_FAILED', `leader epoch entries out of order at index ${i}`)
      }
    }
  }
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]
    if (entry !== undefined && entry.epoch <= requestedEpoch) {
      const next = entries[i + 1]
      return { epoch: entry.epoch, offset: next === undefined ? logEndOffset : next.startOffset }
    }
  }
  return null
}

// HELPERS

function truncateFully(
  reason: TruncationReason,
  basis: TruncationBasis,
  logStartOffset: number,
  logEndOffset: number,
  fetchOffset: number,
): TruncationDecision {
  return {
    truncateTo: null,
    fetchOffset,
    recordsToRemove: logEndOffset - logStartOffset,
    reason,
    basis,
    truncationCompleted: true,
  }
}

function truncateToPoint(
  reason: TruncationReason,
  basis: TruncationBasis,
  point: number,
  logStartOffset: number,
  logEndOffset: number,
  sourceLogStartOffset: number,
  truncationCompleted: boolean,
): TruncationDecision {
  if (point >= logEndOffset) {
    return {
      truncateTo: logEndOffset,
      fetchOffset: logEndOffset,
      recordsToRemove: 0,
      reason,
      basis: 'logEndOffset',
      truncationCompleted,
    }
  }
  if (point < logStartOffset) {
    return {
      truncateTo: null,
      fetchOffset: Math.max(point, sourceLogStartOffset),
      recordsToRemove: logEndOffset - logStartOffset,
      reason,
      basis: 'belowLogStartOffset',
      truncationCompleted,
    }
  }
  return { truncateTo: point, fetchOffset: point, recordsToRemove: logEndOffset - point, reason, basis, truncationCompleted }
}

function assertOffset(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new MirrorError('VALIDATION_FAILED', `${name} must be a non-negative integer, got ${value}`)
  }
}

function assertLogBounds(logStartOffset: number, logEndOffset: number): void {
  assertOffset('logStartOffset', logStartOffset)
  assertOffset('logEndOffset', logEndOffset)
  if (logEndOffset < logStartOffset) {
    throw new MirrorError('VALIDATION_FAILED', `logEndOffset ${logEndOffset} is below logStartOffset ${logStartOffset}`)
  }
}
