import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_CONFIG, FAILURE_MESSAGES, type RetryConfig } from './constants'
import { MirrorError } from './errors'
import type { MirrorEvent } from './events'
import { createMirrorPartition, withChanges } from './partition'
import { isValidTransition } from './states'
import { STOPPING_STEPS } from './stopping'
import {
  effectsOnRestore,
  nextRetryAttempt,
  retryDelayMs,
  retryTarget,
  shouldRetry,
  transition,
} from './transition'
import { context, expectIgnored, kinds, NOW, run, SAMPLE_EVENTS, SAMPLE_PARTITIONS } from './testing/transition-fixtures'

describe('failure and retry', () => {
  it('#6 records the error, the previous state and attempt 1, and schedules a retry', () => {
    const ctx = context({ random: () => 0.5 })
    const result = transition(SAMPLE_PARTITIONS.PAUSED, SAMPLE_EVENTS.failed, ctx)
    expect(result.next).toMatchObject({ state: 'FAILED', previousState: 'PAUSED', retryAttempt: 1, error: 'fetch failed: connection refused' })
    expect(result.effects).toEqual([
      { kind: 'persistState' },
      { kind: 'removeFetcher' },
      { kind: 'scheduleRetry', delayMs: 50, attempt: 1, stateEpoch: result.next.stateEpoch, then: 'retryDue' },
    ])
  })

  it('#6 keeps counting across retries until a fetch succeeds', () => {
    const failure: MirrorEvent = { type: 'failed', error: 'boom', retryable: true }
    let partition = run(SAMPLE_PARTITIONS.PAUSED, [{ type: 'resumeRequested' }, failure])
    expect(partition.retryAttempt).toBe(1)
    partition = run(partition, [{ type: 'retryDue' }, failure, { type: 'retryDue' }, failure])
    expect(partition).toMatchObject({ state: 'FAILED', retryAttempt: 3, previousState: 'MIRRORING' })
    partition = run(partition, [{ type: 'retryDue' }])
    expect(partition).toMatchObject({ state: 'MIRRORING', retryAttempt: 3, error: 'boom' })
    partition = run(partition, [{ type: 'fetchSucceeded' }])
    expect(partition).toMatchObject({ state: 'MIRRORING', retryAttempt: 0, error: null })
  })

  it('#6 stops retrying automatically at max attempts', () => {
    const config: RetryConfig = { initialBackoffMs: 100, maxBackoffMs: 1000, maxAttempts: 3 }
    const ctx = context({ retryConfig: config })
    const failure: MirrorEvent = { type: 'failed', error: 'boom', retryable: true }
    let partition = transition(SAMPLE_PARTITIONS.MIRRORING, failure, ctx).next
    partition = withChanges(partition, { retryAttempt: 2 })
    const retried = transition(partition, { type: 'retryDue' }, ctx)
    const last = transition(retried.next, failure, ctx)
    expect(last.next.retryAttempt).toBe(3)
    expect(kinds(last.effects)).toEqual(['persistState', 'removeFetcher'])
    expect(shouldRetry(last.next, config)).toBe(false)
  })

  it('#6 never retries a non-retryable failure automatically; recover returns it to its previous state', () => {
    const failed = transition(SAMPLE_PARTITIONS.MIRRORING, { type: 'sourceTopicDeleted' }, context())
    expect(failed.next).toMatchObject({ retryAttempt: -1, error: FAILURE_MESSAGES.sourceTopicDeleted })
    expect(kinds(failed.effects)).not.toContain('scheduleRetry')
    expectIgnored(transition(failed.next, { type: 'retryDue' }, context()), failed.next, 'guardRejected')
    const recovered = transition(failed.next, { type: 'recoverRequested' }, context())
    expect(recovered.next).toMatchObject({ state: 'MIRRORING', retryAttempt: 0, error: null })
    expect(kinds(recovered.effects)).toEqual(['persistState', 'cancelScheduledRetry', 'startFetcher'])
  })

  it('#6 recovers a partition that failed before it had a state into PREPARING', () => {
    const failed = transition(createMirrorPartition(NOW), SAMPLE_EVENTS.failed, context())
    expect(failed.next.previousState).toBe('UNKNOWN')
    expect(transition(failed.next, { type: 'recoverRequested' }, context()).next.state).toBe('PREPARING')
    expect(transition(failed.next, { type: 'retryDue' }, context()).next.state).toBe('PREPARING')
  })

  it('keeps the first previous state when a FAILED partition fails again', () => {
    const first = transition(SAMPLE_PARTITIONS.PREPARING, SAMPLE_EVENTS.failed, context()).next
    const second = transition(first, { type: 'failed', error: 'again', retryable: true }, context())
    expect(second.outcome).toBe('updated')
    expect(second.next).toMatchObject({ state: 'FAILED', previousState: 'PREPARING', retryAttempt: 2, error: 'again' })
    expect(second.next.stateEpoch).toBe(first.stateEpoch)
    expect(kinds(second.effects)).toEqual(['persistState', 'scheduleRetry'])
  })

  it('escalates a retryable failure to non-retryable and cancels the pending retry', () => {
    const result = transition(SAMPLE_PARTITIONS.FAILED, { type: 'sourceClusterIdChanged', expectedClusterId: 'a', actualClusterId: 'z' }, context())
    expect(result.next).toMatchObject({ retryAttempt: -1, previousState: 'MIRRORING', error: `${FAILURE_MESSAGES.sourceClusterIdChanged} Expected a, found z.` })
    expect(kinds(result.effects)).toEqual(['persistState', 'cancelScheduledRetry'])
  })

  it('does not let a later retryable failure re-arm retries of a non-retryable one', () => {
    const partition = withChanges(SAMPLE_PARTITIONS.FAILED, { retryAttempt: -1, error: FAILURE_MESSAGES.sourceTopicDeleted })
    expectIgnored(transition(partition, SAMPLE_EVENTS.failed, context()), partition, 'noChange')
  })

  it('#7 touches only the partition it is given', () => {
    const other = SAMPLE_PARTITIONS.MIRRORING
    const snapshot = JSON.stringify(other)
    transition(SAMPLE_PARTITIONS.MIRRORING, SAMPLE_EVENTS.failed, context())
    expect(JSON.stringify(other)).toBe(snapshot)
  })

  it('#39 accepts a stop from FAILED and starts afresh on failure details', () => {
    const nonRetryable = withChanges(SAMPLE_PARTITIONS.FAILED, { retryAttempt: -1, error: 'source topic deleted' })
    const result = transition(nonRetryable, { type: 'stopRequested' }, context())
    expect(result.next).toMatchObject({ state: 'STOPPING', retryAttempt: 0, error: null })
    expect(kinds(result.effects)).toEqual(['persistState', 'cancelScheduledRetry', 'runStoppingSequence'])
  })

  it('lets a failed partition be paused only if it failed while mirroring or pausing', () => {
    expect(transition(SAMPLE_PARTITIONS.FAILED, { type: 'pauseRequested' }, context()).next.state).toBe('PAUSING')
    const failedPreparing = withChanges(SAMPLE_PARTITIONS.FAILED, { previousState: 'PREPARING' })
    expectIgnored(transition(failedPreparing, { type: 'pauseRequested' }, context()), failedPreparing, 'guardRejected')
  })

  it('falls back to MIRRORING when a fencing retry lost its requested epoch', () => {
    expect(retryTarget({ previousState: 'EPOCH_FENCING', requestedLeaderEpoch: null })).toBe('MIRRORING')
    expect(retryTarget({ previousState: 'EPOCH_FENCING', requestedLeaderEpoch: 12 })).toBe('EPOCH_FENCING')
  })

  it('asks a fencing retry for the same epoch again', () => {
    const failed = transition(SAMPLE_PARTITIONS.EPOCH_FENCING, SAMPLE_EVENTS.failed, context()).next
    const retried = transition(failed, { type: 'retryDue' }, context())
    expect(retried.effects).toContainEqual({ kind: 'bumpLeaderEpoch', minimumEpoch: 18, then: 'epochBumpCompleted' })
  })
})

describe('retry delay', () => {
  const config = DEFAULT_RETRY_CONFIG

  it('is drawn uniformly from [0, initial · 2^(attempt−1)] (full jitter)', () => {
    expect(retryDelayMs(1, config, () => 0)).toBe(0)
    expect(retryDelayMs(1, config, () => 0.999999)).toBe(100)
    expect(retryDelayMs(4, config, () => 0.999999)).toBe(800)
    expect(retryDelayMs(4, config, () => 0.5)).toBe(400)
  })

  it('never exceeds the max backoff, however many attempts', () => {
    expect(retryDelayMs(12, config, () => 0.999999)).toBe(204_800)
    expect(retryDelayMs(13, config, () => 0.999999)).toBe(300_000)
    expect(retryDelayMs(10_000, config, () => 0.999999)).toBe(300_000)
  })

  it('rejects attempts below 1 and random numbers outside [0, 1)', () => {
    expect(() => retryDelayMs(0, config, () => 0.5)).toThrow(MirrorError)
    expect(() => retryDelayMs(-1, config, () => 0.5)).toThrow(MirrorError)
    expect(() => retryDelayMs(1, config, () => 1)).toThrow(MirrorError)
    expect(() => retryDelayMs(1, config, () => Number.NaN)).toThrow(MirrorError)
  })

  it('stays within bounds for any attempt and random draw (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const delay = retryDelayMs(attempt, config, () => r)
        return Number.isInteger(delay) && delay >= 0 && delay <= Math.min(300_000, 100 * 2 ** (attempt - 1))
      }),
    )
  })

  it('retries while fewer than max attempts failed, never when disabled or non-retryable', () => {
    expect(shouldRetry({ state: 'FAILED', retryAttempt: 19 }, config)).toBe(true)
    expect(shouldRetry({ state: 'FAILED', retryAttempt: 20 }, config)).toBe(false)
    expect(shouldRetry({ state: 'FAILED', retryAttempt: 1 }, { ...config, maxAttempts: 0 })).toBe(false)
    expect(shouldRetry({ state: 'FAILED', retryAttempt: -1 }, config)).toBe(false)
    expect(shouldRetry({ state: 'MIRRORING', retryAttempt: 3 }, config)).toBe(false)
  })

  it('counts attempts from 1 and caps them at max attempts', () => {
    expect(nextRetryAttempt({ retryAttempt: 0 }, config)).toBe(1)
    expect(nextRetryAttempt({ retryAttempt: -1 }, config)).toBe(1)
    expect(nextRetryAttempt({ retryAttempt: 20 }, config)).toBe(20)
    expect(nextRetryAttempt({ retryAttempt: 5 }, { ...config, maxAttempts: 0 })).toBe(1)
  })

  it('ignores a retry timer that fired for an earlier failure record', () => {
    const failed = transition(SAMPLE_PARTITIONS.MIRRORING, SAMPLE_EVENTS.failed, context())
    const effect = failed.effects.find((candidate) => candidate.kind === 'scheduleRetry')
    expect(effect).toBeDefined()
    const due: MirrorEvent = { type: 'retryDue', expectedStateEpoch: failed.next.stateEpoch }
    expect(transition(failed.next, due, context()).next.state).toBe('MIRRORING')
    const moved = run(failed.next, [{ type: 'stopRequested' }])
    expectIgnored(transition(moved, due, context()), moved, 'eventNotAllowed')
  })
})

describe('restore after restart', () => {
  it('#1 puts every state back to work without persisting again', () => {
    const ctx = context()
    expect(effectsOnRestore(SAMPLE_PARTITIONS.UNKNOWN, ctx)).toEqual([])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.PREPARING, ctx))).toEqual(['setReadOnly', 'lookUpLastMirrorPosition'])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.EPOCH_FENCING, ctx))).toEqual(['setReadOnly', 'removeFetcher', 'bumpLeaderEpoch'])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.ULE_LOG_TRUNCATION, ctx))).toEqual([
      'setReadOnly',
      'removeFetcher',
      'awaitReplicaConvergence',
    ])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.MIRRORING, ctx))).toEqual(['setReadOnly', 'startFetcher'])
    expect(effectsOnRestore(SAMPLE_PARTITIONS.PAUSING, ctx)).toEqual([
      { kind: 'setReadOnly' },
      { kind: 'removeFetcher', then: 'fetcherRemoved' },
    ])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.PAUSED, ctx))).toEqual(['setReadOnly', 'removeFetcher'])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.STOPPING, ctx))).toEqual(['setReadOnly', 'runStoppingSequence'])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.STOPPED, ctx))).toEqual(['clearReadOnly'])
    expect(kinds(effectsOnRestore(SAMPLE_PARTITIONS.FAILED, ctx))).toEqual(['setReadOnly', 'removeFetcher', 'scheduleRetry'])
  })

  it('#38 runs a ULE truncation again when it had not been reported complete', () => {
    const entered = transition(SAMPLE_PARTITIONS.MIRRORING, SAMPLE_EVENTS.divergenceDetected, context()).next
    expect(kinds(effectsOnRestore(entered, context()))).toEqual(['setReadOnly', 'removeFetcher', 'truncate'])
  })
})

describe('invariants over random event sequences (property)', () => {
  const anyEvent: fc.Arbitrary<MirrorEvent> = fc.oneof(
    fc.constantFrom(...Object.values(SAMPLE_EVENTS)),
    fc.record({ type: fc.constant('failed' as const), error: fc.string(), retryable: fc.boolean() }),
    fc.record({
      type: fc.constant('stoppingStepCompleted' as const),
      step: fc.constantFrom(...STOPPING_STEPS),
      lastMirrorPosition: fc.record({ epoch: fc.integer({ min: -1, max: 9 }), offset: fc.integer({ min: -1, max: 200 }) }),
    }),
    fc.record({ type: fc.constant('epochBumpCompleted' as const), leaderEpoch: fc.integer({ min: 0, max: 40 }) }),
    fc.record({ type: fc.constant('retryDue' as const), expectedStateEpoch: fc.integer({ min: 0, max: 12 }) }),
  )

  it('#3 stateEpoch rises by exactly 1 per state change; nothing else moves it; no event throws', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(anyEvent, fc.boolean()), { maxLength: 40 }), (steps) => {
        let partition = createMirrorPartition(NOW)
        for (const [event, ule] of steps) {
          const result = transition(partition, event, context({ mirrorSupportUncleanLeaderElection: ule }))
          const persisted = kinds(result.effects).filter((kind) => kind === 'persistState').length
          if (result.outcome === 'transitioned') {
            expect(isValidTransition(partition.state, result.next.state)).toBe(true)
            expect(result.next.state).not.toBe(partition.state)
            expect(result.next.stateEpoch).toBe(partition.stateEpoch + 1)
          } else {
            expect(result.next.state).toBe(partition.state)
            expect(result.next.stateEpoch).toBe(partition.stateEpoch)
          }
          expect(persisted).toBe(result.changed ? 1 : 0)
          if (result.changed) expect(result.effects[0]).toEqual({ kind: 'persistState' })
          if (result.outcome === 'ignored') expect(result.next).toBe(partition)
          if (result.next.state === 'FAILED') expect(result.next.retryAttempt).not.toBe(0)
          if (kinds(result.effects).includes('scheduleRetry')) expect(result.next.state).toBe('FAILED')
          partition = result.next
        }
      }),
      { numRuns: 300 },
    )
  })
})
