/**
 * The STOPPING (failover) sequence as data, and a pure planner that says what to do next from the
 * persisted progress and what the log shows now (DESIGN.md §4, KIP-1279.md §4.1, checklist #24–#29).
 *
 * Steps, in this order:
 *   removeFetcher     nothing fetched is appended after this point
 *   persistPosition   record (latest epoch in the log, log end offset): the last mirror position
 *   bumpEpoch         leader epoch strictly above that epoch, visible in metadata (bump only if needed)
 *   abortTransactions one ABORT marker per transaction still open, by first offset, with the new epoch
 *   pidReset          one MIRROR_PID_RESET control record after the markers
 *   done              the partition can enter STOPPED (the read-only flag is lifted there)
 *
 * How the engine uses it: on `runStoppingSequence` it loops — observe the log, call
 * `planStoppingAction`, execute the action, then dispatch `stoppingStepCompleted` when the action
 * `completesStep` (this persists the progress) or `stopCompleted` for `complete`; an action that does
 * not complete its step is corrective and the loop simply plans again. After a crash the loop restarts
 * from the persisted step and the planner skips whatever the log shows is already done, so no step is
 * skipped and none is applied twice.
 */
import { MirrorError } from './errors'
import { byFirstOffset, isDefinedEpochOffset, type EpochOffset, type OpenTransaction } from './types'

export const STOPPING_STEPS = [
  'removeFetcher',
  'persistPosition',
  'bumpEpoch',
  'abortTransactions',
  'pidReset',
  'done',
] as const

export type StoppingStep = (typeof STOPPING_STEPS)[number]

export function isStoppingStep(value: unknown): value is StoppingStep {
  return typeof value === 'string' && (STOPPING_STEPS as readonly string[]).includes(value)
}

/** The step after `step`; `null` after `done`. */
export function nextStoppingStep(step: StoppingStep): StoppingStep | null {
  const index = STOPPING_STEPS.indexOf(step)
  return STOPPING_STEPS[index + 1] ?? null
}

/** What is persisted with the partition while it is STOPPING (and kept once STOPPED). */
export interface StoppingProgress {
  /** The step to perform next; API.md shows it as the partition's `step`. */
  readonly step: StoppingStep
  /** Captured by `persistPosition`; `null` before. */
  readonly lastMirrorPosition: EpochOffset | null
}

export const INITIAL_STOPPING_PROGRESS: StoppingProgress = { step: 'removeFetcher', lastMirrorPosition: null }

/** What the engine reads from the partition before each planning call. */
export interface StoppingObservation {
  /** Newest epoch in the local leader epoch cache, i.e. of the last mirrored batch; -1 when empty. */
  readonly latestEpoch: number
  readonly logEndOffset: number
  /** The partition leader epoch as metadata shows it now. */
  readonly leaderEpoch: number
  /** Transactions still open in the partition's producer state. */
  readonly openTransactions: readonly OpenTransaction[]
  /**
   * Offset of a MIRROR_PID_RESET control record at or after the captured position's offset, `null`
   * when there is none. Resets below it were mirrored from the source and do not count. Only the pidReset
   * step plans from it: the engine searches the log for it in that step alone, `null` in the others, and
   * only when the sequence resumed at pidReset or later (before that step no reset of this failover exists).
   */
  readonly pidResetOffset: number | null
}

/**
 * Steps whose action does not depend on the log: the planner takes `null` for them, and the engine reads
 * nothing before them. Observing before removeFetcher and done was two of four reads per partition.
 */
const STEPS_PLANNED_BLIND: ReadonlySet<StoppingStep> = new Set(['removeFetcher', 'done'])

/** Whether planning `step` needs a `StoppingObservation` of the log. */
export function stepNeedsObservation(step: StoppingStep): boolean {
  return !STEPS_PLANNED_BLIND.has(step)
}

/** A completed step, as reported by `stoppingStepCompleted`. */
export interface StoppingStepCompletion {
  readonly step: StoppingStep
  /** Required for `persistPosition`: the position that was captured and persisted. */
  readonly lastMirrorPosition?: EpochOffset
}

export type StoppingAction =
  | { readonly step: 'removeFetcher'; readonly kind: 'removeFetcher'; readonly completesStep: true }
  | {
      readonly step: 'persistPosition'
      readonly kind: 'persistPosition'
      readonly lastMirrorPosition: EpochOffset
      readonly completesStep: true
    }
  | {
      readonly step: StoppingStep
      readonly kind: 'bumpLeaderEpoch'
      /** Wait until metadata shows a leader epoch at or above this (never lowers it). */
      readonly minimumEpoch: number
      readonly completesStep: boolean
    }
  | {
      readonly step: StoppingStep
      readonly kind: 'appendAbortMarkers'
      /** In append order: by first offset, then producer id. */
      readonly transactions: readonly OpenTransaction[]
      readonly leaderEpoch: number
      readonly completesStep: boolean
    }
  | { readonly step: 'pidReset'; readonly kind: 'appendPidReset'; readonly leaderEpoch: number; readonly completesStep: true }
  | { readonly step: StoppingStep; readonly kind: 'skip'; readonly reason: string; readonly completesStep: true }
  | { readonly step: 'done'; readonly kind: 'complete'; readonly completesStep: false }

/**
 * The next action of the STOPPING sequence. `observation` may be `null` for the steps that do not read the log
 * (`stepNeedsObservation`); for any other step that is an INTERNAL error.
 *
 * Cases per step:
 * - removeFetcher: remove it (idempotent).
 * - persistPosition: capture (latestEpoch, logEndOffset); an empty epoch cache gives (-1, -1), "no
 *   history". Safe to recapture after a crash: nothing is appended between the fetcher removal and the
 *   persisted capture.
 * - bumpEpoch: skip when the leader epoch is already above the last mirror epoch (the usual case, since
 *   the destination epoch is kept ahead of the source); else bump to at least that epoch + 1.
 * - abortTransactions: if the leader epoch is not above the last mirror epoch, bump first (corrective);
 *   skip when no transaction is open; else abort the open ones, ordered by first offset, with the
 *   current leader epoch. After a crash only the transactions still open are aborted.
 * - pidReset: bump first if needed, abort first if a transaction is still open (both corrective: the
 *   reset must follow the markers); skip when a reset record already sits at or after the last mirror
 *   offset; else append it with the current leader epoch.
 * - done: complete (the engine dispatches `stopCompleted`).
 */
export function planStoppingAction(progress: StoppingProgress, observation: StoppingObservation | null): StoppingAction {
  if (progress.step === 'removeFetcher') return { step: 'removeFetcher', kind: 'removeFetcher', completesStep: true }
  if (progress.step === 'done') return { step: 'done', kind: 'complete', completesStep: false }
  if (observation === null) throw new MirrorError('INTERNAL', `stopping step ${progress.step} planned without an observation of the log`)
  assertObservation(observation)
  switch (progress.step) {
    case 'persistPosition':
      return {
        step: 'persistPosition',
        kind: 'persistPosition',
        lastMirrorPosition: captureLastMirrorPosition(observation),
        completesStep: true,
      }
    case 'bumpEpoch': {
      const position = requirePosition(progress)
      if (observation.leaderEpoch > position.epoch) {
        return { step: 'bumpEpoch', kind: 'skip', reason: 'leaderEpochAboveLastMirrorEpoch', completesStep: true }
      }
      return { step: 'bumpEpoch', kind: 'bumpLeaderEpoch', minimumEpoch: position.epoch + 1, completesStep: true }
    }
    case 'abortTransactions': {
      const position = requirePosition(progress)
      if (observation.leaderEpoch <= position.epoch) {
        return { step: 'abortTransactions', kind: 'bumpLeaderEpoch', minimumEpoch: position.epoch + 1, completesStep: false }
      }
      if (observation.openTransactions.length === 0) {
        return { step: 'abortTransactions', kind: 'skip', reason: 'noOpenTransactions', completesStep: true }
      }
      return {
        step: 'abortTransactions',
        kind: 'appendAbortMarkers',
        transactions: [...observation.openTransactions].sort(byFirstOffset),
        leaderEpoch: observation.leaderEpoch,
        completesStep: true,
      }
    }
    case 'pidReset': {
      const position = requirePosition(progress)
      if (observation.leaderEpoch <= position.epoch) {
        return { step: 'pidReset', kind: 'bumpLeaderEpoch', minimumEpoch: position.epoch + 1, completesStep: false }
      }
      if (observation.openTransactions.length > 0) {
        return {
          step: 'pidReset',
          kind: 'appendAbortMarkers',
          transactions: [...observation.openTransactions].sort(byFirstOffset),
          leaderEpoch: observation.leaderEpoch,
          completesStep: false,
        }
      }
      if (observation.pidResetOffset !== null && observation.pidResetOffset >= position.offset) {
        return { step: 'pidReset', kind: 'skip', reason: 'pidResetAlreadyWritten', completesStep: true }
      }
      return { step: 'pidReset', kind: 'appendPidReset', leaderEpoch: observation.leaderEpoch, completesStep: true }
    }
  }
}

/** True when `completion` is the step `progress` waits for, with the data that step must report. */
export function isExpectedStoppingCompletion(progress: StoppingProgress, completion: StoppingStepCompletion): boolean {
  if (progress.step === 'done' || completion.step !== progress.step) return false
  if (completion.step === 'persistPosition') return isValidPosition(completion.lastMirrorPosition)
  return true
}

/** Progress after `completion`; throws INTERNAL when it is not the expected completion. */
export function advanceStoppingProgress(progress: StoppingProgress, completion: StoppingStepCompletion): StoppingProgress {
  if (!isExpectedStoppingCompletion(progress, completion)) {
    throw new MirrorError('INTERNAL', `stopping step ${completion.step} completed while waiting for ${progress.step}`)
  }
  const step = nextStoppingStep(progress.step) ?? 'done'
  if (completion.step === 'persistPosition' && completion.lastMirrorPosition !== undefined) {
    return { step, lastMirrorPosition: completion.lastMirrorPosition }
  }
  return { step, lastMirrorPosition: progress.lastMirrorPosition }
}

/** The last mirror position of a log whose fetcher is removed: (latest epoch, log end offset). */
export function captureLastMirrorPosition(observation: Pick<StoppingObservation, 'latestEpoch' | 'logEndOffset'>): EpochOffset {
  if (observation.latestEpoch < 0) return { epoch: -1, offset: -1 }
  return { epoch: observation.latestEpoch, offset: observation.logEndOffset }
}

function isValidPosition(position: EpochOffset | undefined): position is EpochOffset {
  if (position === undefined) return false
  if (position.epoch === -1 && position.offset === -1) return true
  return isDefinedEpochOffset(position)
}

function requirePosition(progress: StoppingProgress): EpochOffset {
  if (progress.lastMirrorPosition === null) {
    throw new MirrorError('INTERNAL', `stopping step ${progress.step} reached without a persisted last mirror position`)
  }
  return progress.lastMirrorPosition
}

function assertObservation(observation: StoppingObservation): void {
  const { latestEpoch, logEndOffset, leaderEpoch, pidResetOffset } = observation
  if (!Number.isSafeInteger(latestEpoch) || latestEpoch < -1) {
    throw new MirrorError('VALIDATION_FAILED', `latestEpoch must be -1 or a non-negative integer, got ${latestEpoch}`)
  }
  if (!Number.isSafeInteger(logEndOffset) || logEndOffset < 0) {
    throw new MirrorError('VALIDATION_FAILED', `logEndOffset must be a non-negative integer, got ${logEndOffset}`)
  }
  if (!Number.isSafeInteger(leaderEpoch) || leaderEpoch < 0) {
    throw new MirrorError('VALIDATION_FAILED', `leaderEpoch must be a non-negative integer, got ${leaderEpoch}`)
  }
  if (pidResetOffset !== null && (!Number.isSafeInteger(pidResetOffset) || pidResetOffset < 0)) {
    throw new MirrorError('VALIDATION_FAILED', `pidResetOffset must be null or a non-negative integer, got ${pidResetOffset}`)
  }
}
