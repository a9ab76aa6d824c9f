// Over 400 lines on purpose: the one pure step of the state machine, a switch over the effects of EVENT_TABLE that reads as one table; split, a transition would be spread over files.
/**
 * `transition(partition, event, ctx)`: the pure step of the partition state machine. It asks
 * EVENT_TABLE (states.ts) what the event means in the current state and returns the next partition
 * value with the effects to run, as data. One runner per partition executes them (server/engine).
 *
 * Outcomes:
 * - transitioned: the state changed; stateEpoch +1; effects start with `persistState`.
 * - updated: same state, but the persisted record changed (failure details, truncation record, STOPPING
 *   progress); stateEpoch unchanged; effects start with `persistState`.
 * - stepped: same state, nothing to persist, but work to do (e.g. truncate after the position lookup).
 * - ignored: nothing happens and there are no effects; `reason` says why, for the runner's log. An event
 *   never throws, whatever it is; only a partition whose state is not a known state throws (a bug).
 *
 * How a runner executes effects: in order, each to completion before the next; `persistState` (always
 * first when present) appends `next` to `__mirror_state` before anything else may touch the cluster.
 * An effect with `then` is awaited work: when it finishes the runner dispatches that event (for a timer,
 * with `expectedStateEpoch`). If an effect fails, the runner drops the remaining effects and dispatches
 * `failed` with its own retryable/non-retryable classification.
 */
import { DEFAULT_RETRY_CONFIG, FAILURE_MESSAGES, NON_RETRYABLE_ATTEMPT, type RetryConfig } from './constants'
import { MirrorError } from './errors'
import type { MirrorEvent, MirrorEventOf } from './events'
import { epochBumpTarget, GUARDS, type GuardContext } from './guards'
import { CLEARED_FAILURE, withChanges, type Divergence, type MirrorPartitionValue, type MirrorPartitionPatch } from './partition'
import { isMirrorEventType, isMirrorPartitionState, isValidTransition, RETRY_TARGETS, rulesFor, type EventRule, type MirrorPartitionState, type StayAction } from './states'
import { EVENT_METADATA, STATE_METADATA } from './state-metadata'
import { advanceStoppingProgress, INITIAL_STOPPING_PROGRESS } from './stopping'
import { decideDivergingEpochTruncation, decideTruncation, type TruncationDecision } from './truncation'
import { isDefinedEpochOffset } from './types'

export { createMirrorPartition, withChanges, type MirrorPartitionValue } from './partition'

// TYPES

/** Returns a number in [0, 1); injected so retry delays are deterministic in tests. */
export type RandomSource = () => number

export interface TransitionContext extends GuardContext {
  /** Injected clock, epoch milliseconds. */
  readonly now: number
  readonly retryConfig: RetryConfig
  readonly random: RandomSource
}

export type MirrorEffect =
  /** Append the result's `next` to `__mirror_state`; must be durable before the next effect runs. */
  | { readonly kind: 'persistState' }
  /** Reject client writes to the topic (idempotent). */
  | { readonly kind: 'setReadOnly' }
  /** Allow client writes to the topic: it is an ordinary topic from now on. */
  | { readonly kind: 'clearReadOnly' }
  /** Fetch from the source starting at the local log end offset, with lastFetchedEpoch. */
  | { readonly kind: 'startFetcher'; readonly fromOffset: 'logEndOffset' }
  /** Remove the fetcher so that nothing more is appended (idempotent); with `then`, report it. */
  | { readonly kind: 'removeFetcher'; readonly then?: 'fetcherRemoved' }
  /** Loop check, reverse-mirror check and last mirror position lookup on the source (KIP-1279.md §3.4). */
  | { readonly kind: 'lookUpLastMirrorPosition'; readonly then: 'lastMirrorPositionFound' }
  /**
   * Truncate the leader and every in-sync replica to `truncateTo` (or empty the log and restart it at
   * `fetchOffset` when `truncateTo` is null); report when they all hold the truncated log.
   */
  | ({ readonly kind: 'truncate'; readonly then: 'truncationCompleted' } & TruncationDecision)
  /** Wait until every destination replica (not only the in-sync ones) holds the truncated log. */
  | { readonly kind: 'awaitReplicaConvergence'; readonly then: 'replicasConverged' }
  /**
   * Raise the destination leader epoch to at least `minimumEpoch` (never lowers it). With `then`, wait
   * until metadata shows it and report; without, fire and forget (proactive bump while MIRRORING).
   */
  | { readonly kind: 'bumpLeaderEpoch'; readonly minimumEpoch: number; readonly then?: 'epochBumpCompleted' }
  /** Run the STOPPING steps with `planStoppingAction` (stopping.ts) until it says `complete`. */
  | { readonly kind: 'runStoppingSequence'; readonly then: 'stopCompleted' }
  /** Replace any pending retry timer by one firing after `delayMs`. */
  | {
      readonly kind: 'scheduleRetry'
      readonly delayMs: number
      readonly attempt: number
      readonly stateEpoch: number
      readonly then: 'retryDue'
    }
  /** Drop a pending retry timer, if any. */
  | { readonly kind: 'cancelScheduledRetry' }

export type MirrorEffectKind = MirrorEffect['kind']

export type IgnoredReason =
  /** The table has no rule for this event in this state (or the event type is unknown). */
  | 'eventNotAllowed'
  /** The event's rule exists but its guard did not pass. */
  | 'guardRejected'
  /** The event leads to the state the partition is already in. */
  | 'alreadyInState'
  /** `expectedStateEpoch` does not match: the partition moved on since the work started. */
  | 'staleEvent'
  /** The event's payload is malformed (negative offsets, inconsistent lookups). */
  | 'invalidPayload'
  /** The event would change nothing (e.g. a retryable failure on a non-retryable partition). */
  | 'noChange'
  /** The resolved target is not a valid transition (a retry to a state FAILED may not enter). */
  | 'invalidTransition'

export type TransitionResult<P extends MirrorPartitionValue = MirrorPartitionValue> =
  | {
      readonly outcome: 'transitioned'
      readonly changed: true
      readonly from: MirrorPartitionState
      readonly to: MirrorPartitionState
      readonly next: P
      readonly effects: readonly MirrorEffect[]
    }
  | { readonly outcome: 'updated'; readonly changed: true; readonly next: P; readonly effects: readonly MirrorEffect[] }
  | { readonly outcome: 'stepped'; readonly changed: false; readonly next: P; readonly effects: readonly MirrorEffect[] }
  | {
      readonly outcome: 'ignored'
      readonly changed: false
      readonly reason: IgnoredReason
      readonly next: P
      readonly effects: readonly []
    }

// TRANSITION

export function transition<P extends MirrorPartitionValue>(partition: P, event: MirrorEvent, ctx: TransitionContext): TransitionResult<P> {
  assertKnownState(partition.state)
  if (!isMirrorEventType(event.type)) return ignore(partition, 'eventNotAllowed')
  const rules = rulesFor(partition.state, event.type)
  if (rules.length === 0) return ignore(partition, 'eventNotAllowed')
  if (event.expectedStateEpoch !== undefined && event.expectedStateEpoch !== partition.stateEpoch) {
    return ignore(partition, 'staleEvent')
  }
  const rule = rules.find((candidate) => guardsPass(candidate, partition, event, ctx))
  if (rule === undefined) return ignore(partition, 'guardRejected')
  try {
    if ('stay' in rule) return STAY[rule.stay](partition, event, ctx)
    const target = rule.to === 'previousState' ? retryTarget(partition) : rule.to
    if (target === partition.state) return ignore(partition, 'alreadyInState')
    if (!isValidTransition(partition.state, target)) return ignore(partition, 'invalidTransition')
    return enter(partition, target, event, ctx)
  } catch (error) {
    if (error instanceof InvalidEventPayload) return ignore(partition, 'invalidPayload')
    throw error
  }
}

/**
 * Effects that put a partition loaded from `__mirror_state` back to work after a restart: those of
 * entering its state again (without persisting, since nothing changed), plus the read-only flag.
 */
export function effectsOnRestore(partition: MirrorPartitionValue, ctx: TransitionContext): readonly MirrorEffect[] {
  assertKnownState(partition.state)
  if (partition.state === 'UNKNOWN') return []
  const effects = entryEffects(partition, null, ctx)
  if (STATE_METADATA[partition.state].readOnly && !effects.some((effect) => effect.kind === 'setReadOnly')) {
    return [{ kind: 'setReadOnly' }, ...effects]
  }
  return effects
}

/** Where `retryDue` / `recoverRequested` lead from FAILED (RETRY_TARGETS, with one data-driven fallback). */
export function retryTarget(partition: Pick<MirrorPartitionValue, 'previousState' | 'requestedLeaderEpoch'>): MirrorPartitionState {
  const target = RETRY_TARGETS[partition.previousState]
  // Without the requested epoch there is nothing to wait for; MIRRORING's fetcher re-detects the epoch.
  if (target === 'EPOCH_FENCING' && partition.requestedLeaderEpoch === null) return 'MIRRORING'
  return target
}

// RETRY POLICY

/**
 * Full-jitter exponential backoff: uniform over [0, min(maxBackoffMs, initialBackoffMs · 2^(attempt−1))]
 * in whole milliseconds. `attempt` is the retry attempt (≥ 1) the delay precedes.
 */
export function retryDelayMs(attempt: number, config: RetryConfig, random: RandomSource): number {
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new MirrorError('VALIDATION_FAILED', `retry attempt must be a positive integer, got ${attempt}`)
  }
  assertRetryConfig(config)
  const sample = random()
  if (!(sample >= 0 && sample < 1)) {
    throw new MirrorError('VALIDATION_FAILED', `random source must return a number in [0, 1), got ${sample}`)
  }
  // 2^52 already exceeds any sane max backoff; capping the exponent keeps the product finite.
  const ceiling = Math.min(config.maxBackoffMs, config.initialBackoffMs * 2 ** Math.min(attempt - 1, 52))
  return Math.floor(sample * (ceiling + 1))
}

/**
 * An automatic retry is due: FAILED, retryable, retries enabled, and fewer than `maxAttempts` failures
 * so far (the first try counts as an attempt, so 20 means at most 19 retries).
 */
export function shouldRetry(partition: Pick<MirrorPartitionValue, 'state' | 'retryAttempt'>, config: RetryConfig = DEFAULT_RETRY_CONFIG): boolean {
  return (
    partition.state === 'FAILED' &&
    partition.retryAttempt >= 1 &&
    config.maxAttempts > 0 &&
    partition.retryAttempt < config.maxAttempts
  )
}

/** The attempt number after one more retryable failure, capped so it stays within `maxAttempts`. */
export function nextRetryAttempt(partition: Pick<MirrorPartitionValue, 'retryAttempt'>, config: RetryConfig): number {
  return Math.min(Math.max(partition.retryAttempt, 0) + 1, Math.max(config.maxAttempts, 1))
}

// INTERNALS

/** Raised inside `transition` when an event's payload is malformed; turned into an ignored outcome. */
class InvalidEventPayload extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'InvalidEventPayload'
  }
}

/** Runs a decision on event data; its validation errors mean the payload, not the code, is wrong. */
function fromPayload<T>(decide: () => T): T {
  try {
    return decide()
  } catch (error) {
    if (error instanceof MirrorError && error.code === 'VALIDATION_FAILED') {
      throw new InvalidEventPayload(error.message, { cause: error })
    }
    throw error
  }
}

function guardsPass(rule: EventRule, partition: MirrorPartitionValue, event: MirrorEvent, ctx: GuardContext): boolean {
  if (rule.when !== undefined && !GUARDS[rule.when](partition, event, ctx)) return false
  if (rule.unless !== undefined && GUARDS[rule.unless](partition, event, ctx)) return false
  return true
}

function enter<P extends MirrorPartitionValue>(
  partition: P,
  target: MirrorPartitionState,
  event: MirrorEvent,
  ctx: TransitionContext,
): TransitionResult<P> {
  const from = partition.state
  let patch: MirrorPartitionPatch = {
    state: target,
    previousState: from,
    stateEpoch: partition.stateEpoch + 1,
    stateSince: ctx.now,
  }
  // An operator's request starts a fresh count: earlier failures no longer describe what happens next.
  if (EVENT_METADATA[event.type].origin === 'operator') patch = { ...patch, ...CLEARED_FAILURE }
  // A divergence describes the FAILED it caused, and nothing after it.
  if (partition.divergence != null) patch = { ...patch, divergence: null }

  switch (target) {
    case 'UNKNOWN':
      throw new MirrorError('INTERNAL', 'UNKNOWN is never entered')
    case 'PREPARING':
      patch = { ...patch, stopping: null, pendingTruncation: null, requestedLeaderEpoch: null }
      break
    case 'EPOCH_FENCING':
      if (event.type === 'batchEpochExceeded') patch = { ...patch, requestedLeaderEpoch: fencingTarget(event) }
      break
    case 'ULE_LOG_TRUNCATION':
      if (event.type === 'divergenceDetected') {
        patch = { ...patch, pendingTruncation: fromPayload(() => decideDivergingEpochTruncation(event)) }
      }
      break
    case 'MIRRORING':
      if (event.type === 'truncationCompleted') patch = { ...patch, lastTruncation: truncationRecord(event, ctx.now) }
      patch = { ...patch, pendingTruncation: null, requestedLeaderEpoch: null }
      break
    case 'PAUSING':
      break
    case 'PAUSED':
      patch = { ...patch, ...CLEARED_FAILURE }
      break
    case 'STOPPING':
      // A stop resumed after a failure keeps its progress, so no step is applied twice.
      patch = { ...patch, stopping: partition.stopping ?? INITIAL_STOPPING_PROGRESS }
      break
    case 'STOPPED':
      patch = { ...patch, ...CLEARED_FAILURE }
      break
    case 'FAILED': {
      const failure = failureOf(event)
      patch = {
        ...patch,
        error: failure.error,
        retryAttempt: failure.retryable ? nextRetryAttempt(partition, ctx.retryConfig) : NON_RETRYABLE_ATTEMPT,
      }
      if (event.type === 'divergenceDetected') patch = { ...patch, divergence: divergenceOf(event) }
      break
    }
  }

  const next = withChanges(partition, patch)
  const effects: MirrorEffect[] = [{ kind: 'persistState' }]
  if (from === 'FAILED' && event.type !== 'retryDue') effects.push({ kind: 'cancelScheduledRetry' })
  effects.push(...entryEffects(next, from, ctx))
  return { outcome: 'transitioned', changed: true, from, to: target, next, effects }
}

/** What entering (or, with `from` null, resuming) `partition.state` requires, after persisting. */
function entryEffects(partition: MirrorPartitionValue, from: MirrorPartitionState | null, ctx: TransitionContext): MirrorEffect[] {
  switch (partition.state) {
    case 'UNKNOWN':
      return []
    case 'PREPARING':
      return [{ kind: 'setReadOnly' }, { kind: 'lookUpLastMirrorPosition', then: 'lastMirrorPositionFound' }]
    case 'EPOCH_FENCING': {
      if (partition.requestedLeaderEpoch === null) {
        throw new MirrorError('INTERNAL', 'EPOCH_FENCING without a requested leader epoch')
      }
      return [
        { kind: 'removeFetcher' },
        { kind: 'bumpLeaderEpoch', minimumEpoch: partition.requestedLeaderEpoch, then: 'epochBumpCompleted' },
      ]
    }
    case 'ULE_LOG_TRUNCATION':
      return [
        { kind: 'removeFetcher' },
        partition.pendingTruncation === null
          ? { kind: 'awaitReplicaConvergence', then: 'replicasConverged' }
          : truncateEffect(partition.pendingTruncation),
      ]
    case 'MIRRORING':
      return [{ kind: 'startFetcher', fromOffset: 'logEndOffset' }]
    case 'PAUSING':
      return [{ kind: 'removeFetcher', then: 'fetcherRemoved' }]
    case 'PAUSED':
      return from === 'PAUSING' ? [] : [{ kind: 'removeFetcher' }]
    case 'STOPPING':
      return [{ kind: 'runStoppingSequence', then: 'stopCompleted' }]
    case 'STOPPED':
      return [{ kind: 'clearReadOnly' }]
    case 'FAILED':
      return [{ kind: 'removeFetcher' }, ...retryEffects(partition, ctx)]
  }
}

function retryEffects(partition: MirrorPartitionValue, ctx: TransitionContext): MirrorEffect[] {
  if (!shouldRetry(partition, ctx.retryConfig)) return []
  return [
    {
      kind: 'scheduleRetry',
      delayMs: retryDelayMs(partition.retryAttempt, ctx.retryConfig, ctx.random),
      attempt: partition.retryAttempt,
      stateEpoch: partition.stateEpoch,
      then: 'retryDue',
    },
  ]
}

type StayImplementation = <P extends MirrorPartitionValue>(partition: P, event: MirrorEvent, ctx: TransitionContext) => TransitionResult<P>

const STAY = {
  planTruncation: (partition, event) => {
    if (event.type !== 'lastMirrorPositionFound') return ignore(partition, 'eventNotAllowed')
    return { outcome: 'stepped', changed: false, next: partition, effects: [truncateEffect(fromPayload(() => decideTruncation(event)))] }
  },
  requestProactiveEpochBump: (partition, event) => {
    if (event.type !== 'epochBumpThresholdReached') return ignore(partition, 'eventNotAllowed')
    const minimumEpoch = epochBumpTarget(event.observedEpoch, event.leaderEpoch)
    return { outcome: 'stepped', changed: false, next: partition, effects: [{ kind: 'bumpLeaderEpoch', minimumEpoch }] }
  },
  clearFailureDetails: (partition) => updated(partition, CLEARED_FAILURE, []),
  recordTruncation: (partition, event, ctx) => {
    if (event.type !== 'truncationCompleted') return ignore(partition, 'eventNotAllowed')
    return updated(partition, { lastTruncation: truncationRecord(event, ctx.now), pendingTruncation: null }, [
      { kind: 'awaitReplicaConvergence', then: 'replicasConverged' },
    ])
  },
  recordStoppingStep: (partition, event) => {
    if (event.type !== 'stoppingStepCompleted' || partition.stopping === null) return ignore(partition, 'eventNotAllowed')
    const stopping = advanceStoppingProgress(partition.stopping, event)
    const patch: MirrorPartitionPatch =
      event.step === 'persistPosition'
        ? { stopping, lastMirrorPosition: isDefinedEpochOffset(event.lastMirrorPosition) ? event.lastMirrorPosition : null }
        : { stopping }
    return updated(partition, patch, [])
  },
  recordFailure: (partition, event, ctx) => {
    const failure = failureOf(event)
    if (partition.retryAttempt === NON_RETRYABLE_ATTEMPT) {
      // Only an operator clears a non-retryable failure; a later retryable one must not re-arm retries.
      if (failure.retryable || failure.error === partition.error) return ignore(partition, 'noChange')
      return updated(partition, { error: failure.error }, [])
    }
    if (!failure.retryable) {
      return updated(partition, { error: failure.error, retryAttempt: NON_RETRYABLE_ATTEMPT }, [{ kind: 'cancelScheduledRetry' }])
    }
    const next = withChanges(partition, { error: failure.error, retryAttempt: nextRetryAttempt(partition, ctx.retryConfig) })
    const retry = retryEffects(next, ctx)
    return {
      outcome: 'updated',
      changed: true,
      next,
      effects: [{ kind: 'persistState' }, ...(retry.length > 0 ? retry : [{ kind: 'cancelScheduledRetry' } as const])],
    }
  },
} as const satisfies Record<StayAction, StayImplementation>

function updated<P extends MirrorPartitionValue>(partition: P, patch: MirrorPartitionPatch, effects: readonly MirrorEffect[]): TransitionResult<P> {
  return { outcome: 'updated', changed: true, next: withChanges(partition, patch), effects: [{ kind: 'persistState' }, ...effects] }
}

function ignore<P extends MirrorPartitionValue>(partition: P, reason: IgnoredReason): TransitionResult<P> {
  return { outcome: 'ignored', changed: false, reason, next: partition, effects: [] }
}

function truncateEffect(decision: TruncationDecision): MirrorEffect {
  return { kind: 'truncate', then: 'truncationCompleted', ...decision }
}

function truncationRecord(event: MirrorEventOf<'truncationCompleted'>, now: number): MirrorPartitionValue['lastTruncation'] {
  if (!isNonNegativeInteger(event.offset) || !isNonNegativeInteger(event.recordsRemoved)) {
    throw new InvalidEventPayload('truncationCompleted needs a non-negative offset and record count')
  }
  return { offset: event.offset, removedRecords: event.recordsRemoved, at: now, reason: event.reason }
}

/**
 * What the FAILED partition would lose to the truncation it may not do: the same decision ULE_LOG_TRUNCATION would
 * apply with the support on. A payload the decision refuses still names where the source diverges.
 */
function divergenceOf(event: MirrorEventOf<'divergenceDetected'>): Divergence {
  const where = { epoch: event.divergingEpoch.epoch, offset: event.divergingEpoch.offset, logEndOffset: event.logEndOffset }
  try {
    const decision = decideDivergingEpochTruncation(event)
    return { ...where, truncateTo: decision.truncateTo, recordsToCut: decision.recordsToRemove }
  } catch {
    return { ...where, truncateTo: Math.min(Math.max(0, event.divergingEpoch.offset), event.logEndOffset), recordsToCut: Math.max(0, event.logEndOffset - Math.max(0, event.divergingEpoch.offset)) }
  }
}

function fencingTarget(event: MirrorEventOf<'batchEpochExceeded'>): number {
  const observedEpoch = Math.max(event.batchEpoch, event.sourceLeaderEpoch ?? event.batchEpoch)
  return epochBumpTarget(observedEpoch, event.leaderEpoch)
}

interface Failure {
  readonly error: string
  readonly retryable: boolean
}

function failureOf(event: MirrorEvent): Failure {
  switch (event.type) {
    case 'failed':
      return { error: event.error, retryable: event.retryable }
    case 'divergenceDetected':
      return { error: FAILURE_MESSAGES.divergenceWithoutUncleanLeaderElectionSupport, retryable: false }
    case 'sourceTopicDeleted':
      return { error: FAILURE_MESSAGES.sourceTopicDeleted, retryable: false }
    case 'sourceClusterIdChanged': {
      const detail =
        event.expectedClusterId !== undefined && event.actualClusterId !== undefined
          ? ` Expected ${event.expectedClusterId}, found ${event.actualClusterId}.`
          : ''
      return { error: FAILURE_MESSAGES.sourceClusterIdChanged + detail, retryable: false }
    }
    case 'tieredStorageDetected':
      return { error: FAILURE_MESSAGES.tieredStorageEnabled, retryable: false }
    case 'mirrorLoopDetected':
      // Retryable as in the prototype: the loop ends once the other side stops its mirror.
      return { error: FAILURE_MESSAGES.mirrorLoop + (event.detail ? ` ${event.detail}` : ''), retryable: true }
    default:
      throw new MirrorError('INTERNAL', `event ${event.type} is not a failure`)
  }
}

function assertKnownState(state: unknown): asserts state is MirrorPartitionState {
  if (!isMirrorPartitionState(state)) {
    throw new MirrorError('INTERNAL', `partition is in unknown state ${String(state)}`)
  }
}

function assertRetryConfig(config: RetryConfig): void {
  const { initialBackoffMs, maxBackoffMs, maxAttempts } = config
  if (![initialBackoffMs, maxBackoffMs, maxAttempts].every(isNonNegativeInteger)) {
    throw new MirrorError('VALIDATION_FAILED', 'retry config values must be non-negative integers')
  }
}

function isNonNegativeInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}
