import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_CONFIG, FAILURE_MESSAGES, NON_RETRYABLE_ATTEMPT, type RetryConfig } from './constants'
import { MirrorError } from './errors'
import type { MirrorEvent, MirrorEventOf } from './events'
import { createMirrorPartition, withChanges, type MirrorPartitionValue } from './partition'
import { isValidTransition, MIRROR_EVENT_TYPES, MIRROR_PARTITION_STATES, type MirrorEventType, type MirrorPartitionState } from './states'
import { STOPPING_STEPS } from './stopping'
import {
  effectsOnRestore,
  nextRetryAttempt,
  retryDelayMs,
  retryTarget,
  shouldRetry,
  transition,
  type MirrorEffect,
  type TransitionContext,
  type TransitionResult,
} from './transition'

// FIXTURES

const NOW = 1_764_400_000_000

function context(overrides: Partial<TransitionContext> = {}): TransitionContext {
  return {
    now: NOW,
    retryConfig: DEFAULT_RETRY_CONFIG,
    random: () => 0.5,
    mirrorSupportUncleanLeaderElection: true,
    ...overrides,
  }
}

const SAMPLE_EVENTS: { readonly [T in MirrorEventType]: MirrorEventOf<T> } = {
  startRequested: { type: 'startRequested' },
  lastMirrorPositionFound: {
    type: 'lastMirrorPositionFound',
    lastMirrorPosition: { epoch: 2, offset: 3 },
    localEndOffsetForEpoch: { epoch: 2, offset: 6 },
    logStartOffset: 0,
    logEndOffset: 6,
    sourceLogStartOffset: 0,
  },
  truncationCompleted: { type: 'truncationCompleted', offset: 3, recordsRemoved: 3, reason: 'failback' },
  mirrorLoopDetected: { type: 'mirrorLoopDetected' },
  batchEpochExceeded: { type: 'batchEpochExceeded', batchEpoch: 8, leaderEpoch: 7 },
  epochBumpThresholdReached: { type: 'epochBumpThresholdReached', observedEpoch: 5, leaderEpoch: 7 },
  epochBumpCompleted: { type: 'epochBumpCompleted', leaderEpoch: 18 },
  divergenceDetected: {
    type: 'divergenceDetected',
    divergingEpoch: { epoch: 4, offset: 90 },
    localEndOffsetForEpoch: { epoch: 4, offset: 95 },
    logStartOffset: 0,
    logEndOffset: 100,
  },
  replicasConverged: { type: 'replicasConverged' },
  fetchSucceeded: { type: 'fetchSucceeded' },
  pauseRequested: { type: 'pauseRequested' },
  fetcherRemoved: { type: 'fetcherRemoved' },
  resumeRequested: { type: 'resumeRequested' },
  stopRequested: { type: 'stopRequested' },
  stoppingStepCompleted: { type: 'stoppingStepCompleted', step: 'bumpEpoch' },
  stopCompleted: { type: 'stopCompleted' },
  failed: { type: 'failed', error: 'fetch failed: connection refused', retryable: true },
  retryDue: { type: 'retryDue' },
  recoverRequested: { type: 'recoverRequested' },
  sourceTopicDeleted: { type: 'sourceTopicDeleted' },
  sourceClusterIdChanged: { type: 'sourceClusterIdChanged' },
  tieredStorageDetected: { type: 'tieredStorageDetected' },
}

function partitionIn(state: MirrorPartitionState, patch: Partial<MirrorPartitionValue> = {}): MirrorPartitionValue {
  return withChanges(createMirrorPartition(NOW - 5000), { state, stateEpoch: 4, previousState: 'PREPARING', ...patch })
}

/** One representative partition per state, set up so that guarded rules can pass. */
const SAMPLE_PARTITIONS: Record<MirrorPartitionState, MirrorPartitionValue> = {
  UNKNOWN: createMirrorPartition(NOW - 5000),
  PREPARING: partitionIn('PREPARING', { previousState: 'UNKNOWN' }),
  EPOCH_FENCING: partitionIn('EPOCH_FENCING', { previousState: 'MIRRORING', requestedLeaderEpoch: 18 }),
  ULE_LOG_TRUNCATION: partitionIn('ULE_LOG_TRUNCATION', { previousState: 'MIRRORING' }),
  MIRRORING: partitionIn('MIRRORING', { retryAttempt: 2, error: 'fetch failed' }),
  PAUSING: partitionIn('PAUSING', { previousState: 'MIRRORING' }),
  PAUSED: partitionIn('PAUSED', { previousState: 'PAUSING' }),
  STOPPING: partitionIn('STOPPING', {
    previousState: 'MIRRORING',
    stopping: { step: 'bumpEpoch', lastMirrorPosition: { epoch: 3, offset: 100 } },
  }),
  STOPPED: partitionIn('STOPPED', {
    previousState: 'STOPPING',
    stopping: { step: 'done', lastMirrorPosition: { epoch: 3, offset: 100 } },
    lastMirrorPosition: { epoch: 3, offset: 100 },
  }),
  FAILED: partitionIn('FAILED', { previousState: 'MIRRORING', retryAttempt: 1, error: 'fetch failed' }),
}

type Expected = MirrorPartitionState | 'updated' | 'stepped' | 'alreadyInState' | 'guardRejected'

const FAILURES = {
  failed: 'FAILED',
  sourceTopicDeleted: 'FAILED',
  sourceClusterIdChanged: 'FAILED',
  tieredStorageDetected: 'FAILED',
} as const

/**
 * The specification, written independently of EVENT_TABLE: what each event does to the sample
 * partition of each state. Pairs not listed must be ignored as `eventNotAllowed`.
 */
const EXPECTED: Record<MirrorPartitionState, Partial<Record<MirrorEventType, Expected>>> = {
  UNKNOWN: { startRequested: 'PREPARING', failed: 'FAILED' },
  PREPARING: {
    startRequested: 'alreadyInState',
    lastMirrorPositionFound: 'stepped',
    truncationCompleted: 'MIRRORING',
    mirrorLoopDetected: 'FAILED',
    stopRequested: 'STOPPING',
    ...FAILURES,
  },
  EPOCH_FENCING: { startRequested: 'alreadyInState', epochBumpCompleted: 'MIRRORING', stopRequested: 'STOPPING', ...FAILURES },
  ULE_LOG_TRUNCATION: {
    startRequested: 'alreadyInState',
    truncationCompleted: 'guardRejected',
    replicasConverged: 'MIRRORING',
    stopRequested: 'STOPPING',
    ...FAILURES,
  },
  MIRRORING: {
    startRequested: 'alreadyInState',
    resumeRequested: 'alreadyInState',
    fetchSucceeded: 'updated',
    batchEpochExceeded: 'EPOCH_FENCING',
    epochBumpThresholdReached: 'stepped',
    divergenceDetected: 'ULE_LOG_TRUNCATION',
    pauseRequested: 'PAUSING',
    stopRequested: 'STOPPING',
    ...FAILURES,
  },
  // Tiered storage set on a paused mirror topic fails it at once (a config change; no sync runs while paused).
  PAUSING: { pauseRequested: 'alreadyInState', fetcherRemoved: 'PAUSED', stopRequested: 'STOPPING', failed: 'FAILED', tieredStorageDetected: 'FAILED' },
  PAUSED: { pauseRequested: 'alreadyInState', resumeRequested: 'MIRRORING', stopRequested: 'STOPPING', failed: 'FAILED', tieredStorageDetected: 'FAILED' },
  STOPPING: {
    stopRequested: 'alreadyInState',
    stoppingStepCompleted: 'updated',
    stopCompleted: 'guardRejected',
    failed: 'FAILED',
  },
  STOPPED: { stopRequested: 'alreadyInState', startRequested: 'PREPARING', failed: 'FAILED' },
  FAILED: {
    retryDue: 'MIRRORING',
    recoverRequested: 'MIRRORING',
    stopRequested: 'STOPPING',
    pauseRequested: 'PAUSING',
    failed: 'updated',
    mirrorLoopDetected: 'updated',
    sourceTopicDeleted: 'updated',
    sourceClusterIdChanged: 'updated',
    tieredStorageDetected: 'updated',
  },
}

function expectIgnored(result: TransitionResult, partition: MirrorPartitionValue, reason: string): void {
  expect(result).toEqual({ outcome: 'ignored', changed: false, reason, next: partition, effects: [] })
  expect(result.next).toBe(partition)
}

function kinds(effects: readonly MirrorEffect[]): string[] {
  return effects.map((effect) => effect.kind)
}

function run(partition: MirrorPartitionValue, events: readonly MirrorEvent[], ctx = context()): MirrorPartitionValue {
  return events.reduce((current, event) => transition(current, event, ctx).next, partition)
}

// TESTS

describe('transition over every (state, event) pair', () => {
  const pairs = MIRROR_PARTITION_STATES.flatMap((state) => MIRROR_EVENT_TYPES.map((type) => [state, type] as const))

  it.each(pairs)('%s + %s behaves as specified', (state, type) => {
    const partition = SAMPLE_PARTITIONS[state]
    const result = transition(partition, SAMPLE_EVENTS[type], context())
    const expected = EXPECTED[state][type]

    if (expected === undefined || expected === 'alreadyInState' || expected === 'guardRejected') {
      // #2 an invalid proposed transition leaves state and stateEpoch unchanged and produces no record
      expectIgnored(result, partition, expected ?? 'eventNotAllowed')
      return
    }
    if (expected === 'stepped') {
      expect(result.outcome).toBe('stepped')
      expect(result.changed).toBe(false)
      expect(result.next).toBe(partition)
      expect(result.effects.length).toBeGreaterThan(0)
      expect(kinds(result.effects)).not.toContain('persistState')
      return
    }
    expect(result.changed).toBe(true)
    expect(result.effects[0]).toEqual({ kind: 'persistState' })
    expect(kinds(result.effects).filter((kind) => kind === 'persistState')).toHaveLength(1)
    if (expected === 'updated') {
      expect(result.outcome).toBe('updated')
      expect(result.next.state).toBe(state)
      expect(result.next.stateEpoch).toBe(partition.stateEpoch)
      expect(result.next.stateSince).toBe(partition.stateSince)
      return
    }
    expect(result).toMatchObject({ outcome: 'transitioned', from: state, to: expected })
    expect(result.next.state).toBe(expected)
    expect(result.next.previousState).toBe(state)
    expect(result.next.stateEpoch).toBe(partition.stateEpoch + 1)
    expect(result.next.stateSince).toBe(NOW)
    expect(isValidTransition(state, expected)).toBe(true)
  })

  it('#2 ignores a disallowed event without touching the partition (PAUSED + fetchSucceeded)', () => {
    const partition = SAMPLE_PARTITIONS.PAUSED
    expectIgnored(transition(partition, { type: 'fetchSucceeded' }, context()), partition, 'eventNotAllowed')
  })

  it('#2 treats re-proposing the current state as a no-op (MIRRORING + resumeRequested)', () => {
    const partition = SAMPLE_PARTITIONS.MIRRORING
    expectIgnored(transition(partition, { type: 'resumeRequested' }, context()), partition, 'alreadyInState')
  })

  it('never throws on an event type it does not know, including inherited property names', () => {
    const partition = SAMPLE_PARTITIONS.MIRRORING
    for (const type of ['toString', 'constructor', '__proto__', 'nonsense']) {
      const event = JSON.parse(`{"type":${JSON.stringify(type)}}`) as MirrorEvent
      expectIgnored(transition(partition, event, context()), partition, 'eventNotAllowed')
    }
  })

  it('throws INTERNAL for a partition in a state that does not exist', () => {
    const broken = JSON.parse(JSON.stringify({ ...SAMPLE_PARTITIONS.MIRRORING, state: 'RUNNING' })) as MirrorPartitionValue
    expect(() => transition(broken, { type: 'stopRequested' }, context())).toThrow(MirrorError)
    expect(() => transition(broken, { type: 'stopRequested' }, context())).toThrow(/unknown state RUNNING/)
  })

  it('ignores an event whose expectedStateEpoch is not the current one (stale completion)', () => {
    const partition = SAMPLE_PARTITIONS.PREPARING
    const stale = { ...SAMPLE_EVENTS.truncationCompleted, expectedStateEpoch: partition.stateEpoch - 1 }
    expectIgnored(transition(partition, stale, context()), partition, 'staleEvent')
    const current = { ...SAMPLE_EVENTS.truncationCompleted, expectedStateEpoch: partition.stateEpoch }
    expect(transition(partition, current, context()).outcome).toBe('transitioned')
  })

  it('ignores an event whose payload is malformed instead of throwing', () => {
    const partition = SAMPLE_PARTITIONS.PREPARING
    const negative = { ...SAMPLE_EVENTS.lastMirrorPositionFound, logEndOffset: -4 }
    expectIgnored(transition(partition, negative, context()), partition, 'invalidPayload')
    const badCount = { ...SAMPLE_EVENTS.truncationCompleted, recordsRemoved: -1 }
    expectIgnored(transition(partition, badCount, context()), partition, 'invalidPayload')
  })

  it('keeps the engine’s own fields on the partition through a transition', () => {
    const tagged = { ...SAMPLE_PARTITIONS.MIRRORING, topic: 'orders', partition: 7 }
    const result = transition(tagged, { type: 'pauseRequested' }, context())
    expect(result.next).toMatchObject({ topic: 'orders', partition: 7, state: 'PAUSING' })
  })
})

describe('persistence and effects', () => {
  it('#1 persists before every other effect of an accepted transition', () => {
    for (const state of MIRROR_PARTITION_STATES) {
      for (const type of MIRROR_EVENT_TYPES) {
        const result = transition(SAMPLE_PARTITIONS[state], SAMPLE_EVENTS[type], context())
        if (result.changed) expect(kinds(result.effects)[0]).toBe('persistState')
        else expect(kinds(result.effects)).not.toContain('persistState')
      }
    }
  })

  it('#4 starts a never-seen partition in PREPARING: read-only, then the last mirror position lookup', () => {
    const result = transition(createMirrorPartition(NOW), { type: 'startRequested' }, context())
    expect(result.next.state).toBe('PREPARING')
    expect(result.effects).toEqual([
      { kind: 'persistState' },
      { kind: 'setReadOnly' },
      { kind: 'lookUpLastMirrorPosition', then: 'lastMirrorPositionFound' },
    ])
  })

  it('#4 restarts a STOPPED partition in PREPARING and forgets its finished stop', () => {
    const result = transition(SAMPLE_PARTITIONS.STOPPED, { type: 'startRequested' }, context())
    expect(result.next).toMatchObject({ state: 'PREPARING', stopping: null, lastMirrorPosition: { epoch: 3, offset: 100 } })
    expect(kinds(result.effects)).toEqual(['persistState', 'setReadOnly', 'lookUpLastMirrorPosition'])
  })

  it('#22 decides the PREPARING truncation from the last mirror position, without persisting', () => {
    const result = transition(SAMPLE_PARTITIONS.PREPARING, SAMPLE_EVENTS.lastMirrorPositionFound, context())
    expect(result.outcome).toBe('stepped')
    expect(result.effects).toEqual([
      {
        kind: 'truncate',
        then: 'truncationCompleted',
        truncateTo: 3,
        fetchOffset: 3,
        recordsToRemove: 3,
        reason: 'failback',
        basis: 'lastMirrorOffset',
        truncationCompleted: true,
      },
    ])
  })

  it('#21 rebuilds from scratch when the source has no last mirror position', () => {
    const event: MirrorEvent = {
      ...SAMPLE_EVENTS.lastMirrorPositionFound,
      lastMirrorPosition: { epoch: -1, offset: -1 },
      sourceLogStartOffset: 40,
    }
    const [effect] = transition(SAMPLE_PARTITIONS.PREPARING, event, context()).effects
    expect(effect).toMatchObject({ kind: 'truncate', truncateTo: null, fetchOffset: 40, recordsToRemove: 6, reason: 'fromScratch' })
  })

  it('#4 enters MIRRORING after truncation, records it, and fetches from the log end offset', () => {
    const result = transition(SAMPLE_PARTITIONS.PREPARING, SAMPLE_EVENTS.truncationCompleted, context())
    expect(result.next.lastTruncation).toEqual({ offset: 3, removedRecords: 3, at: NOW, reason: 'failback' })
    expect(result.effects).toEqual([{ kind: 'persistState' }, { kind: 'startFetcher', fromOffset: 'logEndOffset' }])
  })

  it('#4 resumes PAUSED straight to MIRRORING with no truncation, fetching from the log end offset', () => {
    const result = transition(SAMPLE_PARTITIONS.PAUSED, { type: 'resumeRequested' }, context())
    expect(result.next.state).toBe('MIRRORING')
    expect(result.effects).toEqual([{ kind: 'persistState' }, { kind: 'startFetcher', fromOffset: 'logEndOffset' }])
  })

  it('#5 removes the fetcher on PAUSING and enters PAUSED only once removal is reported', () => {
    const pausing = transition(SAMPLE_PARTITIONS.MIRRORING, { type: 'pauseRequested' }, context())
    expect(pausing.effects).toEqual([{ kind: 'persistState' }, { kind: 'removeFetcher', then: 'fetcherRemoved' }])
    const paused = transition(pausing.next, { type: 'fetcherRemoved' }, context())
    expect(paused.next.state).toBe('PAUSED')
    expect(paused.effects).toEqual([{ kind: 'persistState' }])
  })

  it('#24 runs the stopping sequence from the first step when a stop starts', () => {
    const result = transition(SAMPLE_PARTITIONS.MIRRORING, { type: 'stopRequested' }, context())
    expect(result.next.stopping).toEqual({ step: 'removeFetcher', lastMirrorPosition: null })
    expect(result.effects).toEqual([{ kind: 'persistState' }, { kind: 'runStoppingSequence', then: 'stopCompleted' }])
  })

  it('#24 records stopping steps only in order and enters STOPPED only after the last one', () => {
    let partition = transition(SAMPLE_PARTITIONS.MIRRORING, { type: 'stopRequested' }, context()).next
    expectIgnored(transition(partition, { type: 'stopCompleted' }, context()), partition, 'guardRejected')
    expectIgnored(transition(partition, { type: 'stoppingStepCompleted', step: 'bumpEpoch' }, context()), partition, 'guardRejected')
    for (const step of STOPPING_STEPS.slice(0, -1)) {
      const event: MirrorEvent =
        step === 'persistPosition'
          ? { type: 'stoppingStepCompleted', step, lastMirrorPosition: { epoch: 5, offset: 120 } }
          : { type: 'stoppingStepCompleted', step }
      const result = transition(partition, event, context())
      expect(result.outcome, step).toBe('updated')
      partition = result.next
    }
    expect(partition.stopping?.step).toBe('done')
    const stopped = transition(partition, { type: 'stopCompleted' }, context())
    expect(stopped.next).toMatchObject({ state: 'STOPPED', lastMirrorPosition: { epoch: 5, offset: 120 }, retryAttempt: 0 })
    expect(stopped.effects).toEqual([{ kind: 'persistState' }, { kind: 'clearReadOnly' }])
  })

  it('#29 refuses a persistPosition completion that carries no position', () => {
    const partition = withChanges(SAMPLE_PARTITIONS.STOPPING, { stopping: { step: 'persistPosition', lastMirrorPosition: null } })
    expectIgnored(transition(partition, { type: 'stoppingStepCompleted', step: 'persistPosition' }, context()), partition, 'guardRejected')
  })

  it('#24 resumes a stop that failed half-way at the step it reached', () => {
    const failed = transition(SAMPLE_PARTITIONS.STOPPING, { type: 'failed', error: 'bump timed out', retryable: true }, context())
    expect(failed.next).toMatchObject({ state: 'FAILED', previousState: 'STOPPING' })
    const retried = transition(failed.next, { type: 'retryDue' }, context())
    expect(retried.next.state).toBe('STOPPING')
    expect(retried.next.stopping).toEqual(SAMPLE_PARTITIONS.STOPPING.stopping)
  })

  it('replays the finished stop when lifting the read-only flag failed in STOPPED', () => {
    const failed = transition(SAMPLE_PARTITIONS.STOPPED, { type: 'failed', error: 'flag write failed', retryable: true }, context())
    const retried = transition(failed.next, { type: 'retryDue' }, context())
    expect(retried.next).toMatchObject({ state: 'STOPPING', stopping: { step: 'done' } })
    expect(transition(retried.next, { type: 'stopCompleted' }, context()).next.state).toBe('STOPPED')
  })

  it('#19 fails on a mirror loop without any truncation or fetch effect', () => {
    const result = transition(SAMPLE_PARTITIONS.PREPARING, { type: 'mirrorLoopDetected', detail: 'b-to-a' }, context())
    expect(result.next).toMatchObject({ state: 'FAILED', retryAttempt: 1, error: `${FAILURE_MESSAGES.mirrorLoop} b-to-a` })
    expect(kinds(result.effects)).toEqual(['persistState', 'removeFetcher', 'scheduleRetry'])
  })
})

describe('epochs', () => {
  it('#15 fences a batch above the leader epoch and asks for source epoch + 10', () => {
    const result = transition(SAMPLE_PARTITIONS.MIRRORING, SAMPLE_EVENTS.batchEpochExceeded, context())
    expect(result.next).toMatchObject({ state: 'EPOCH_FENCING', requestedLeaderEpoch: 18 })
    expect(result.effects).toEqual([
      { kind: 'persistState' },
      { kind: 'removeFetcher' },
      { kind: 'bumpLeaderEpoch', minimumEpoch: 18, then: 'epochBumpCompleted' },
    ])
  })

  it('#15 covers the source leader epoch too when it is ahead of the batch', () => {
    const event: MirrorEvent = { type: 'batchEpochExceeded', batchEpoch: 8, leaderEpoch: 7, sourceLeaderEpoch: 12 }
    expect(transition(SAMPLE_PARTITIONS.MIRRORING, event, context()).next.requestedLeaderEpoch).toBe(22)
  })

  it('#15 ignores a batch epoch report that is not above the leader epoch', () => {
    const partition = SAMPLE_PARTITIONS.MIRRORING
    const event: MirrorEvent = { type: 'batchEpochExceeded', batchEpoch: 7, leaderEpoch: 7 }
    expectIgnored(transition(partition, event, context()), partition, 'guardRejected')
  })

  it('#15 returns to MIRRORING only once metadata shows the requested epoch, then refetches', () => {
    const fencing = SAMPLE_PARTITIONS.EPOCH_FENCING
    expectIgnored(transition(fencing, { type: 'epochBumpCompleted', leaderEpoch: 17 }, context()), fencing, 'guardRejected')
    const result = transition(fencing, { type: 'epochBumpCompleted', leaderEpoch: 18 }, context())
    expect(result.next).toMatchObject({ state: 'MIRRORING', requestedLeaderEpoch: null })
    expect(result.effects).toEqual([{ kind: 'persistState' }, { kind: 'startFetcher', fromOffset: 'logEndOffset' }])
  })

  it('#17 requests a proactive bump within 3 of the leader epoch without leaving MIRRORING', () => {
    const partition = SAMPLE_PARTITIONS.MIRRORING
    const near = transition(partition, { type: 'epochBumpThresholdReached', observedEpoch: 5, leaderEpoch: 7 }, context())
    expect(near).toMatchObject({ outcome: 'stepped', next: partition, effects: [{ kind: 'bumpLeaderEpoch', minimumEpoch: 15 }] })
    const far = transition(partition, { type: 'epochBumpThresholdReached', observedEpoch: 4, leaderEpoch: 7 }, context())
    expectIgnored(far, partition, 'guardRejected')
  })

  it('#18 never asks for an epoch below the current leader epoch', () => {
    const result = transition(
      SAMPLE_PARTITIONS.MIRRORING,
      { type: 'epochBumpThresholdReached', observedEpoch: 20, leaderEpoch: 40 },
      context(),
    )
    expect(result.outcome).toBe('ignored')
    const fenced = transition(SAMPLE_PARTITIONS.MIRRORING, { type: 'batchEpochExceeded', batchEpoch: 41, leaderEpoch: 40 }, context())
    expect(fenced.next.requestedLeaderEpoch).toBe(51)
  })
})

describe('unclean leader election on the source', () => {
  it('#37 fails non-retryably without truncating when ULE support is off', () => {
    const ctx = context({ mirrorSupportUncleanLeaderElection: false })
    const result = transition(SAMPLE_PARTITIONS.MIRRORING, SAMPLE_EVENTS.divergenceDetected, ctx)
    expect(result.next).toMatchObject({
      state: 'FAILED',
      retryAttempt: NON_RETRYABLE_ATTEMPT,
      error: FAILURE_MESSAGES.divergenceWithoutUncleanLeaderElectionSupport,
      pendingTruncation: null,
    })
    expect(kinds(result.effects)).toEqual(['persistState', 'removeFetcher'])
  })

  it('#38 truncates to the divergence point, stays until every replica converged, then mirrors', () => {
    const entered = transition(SAMPLE_PARTITIONS.MIRRORING, SAMPLE_EVENTS.divergenceDetected, context())
    expect(entered.next.state).toBe('ULE_LOG_TRUNCATION')
    expect(entered.effects).toEqual([
      { kind: 'persistState' },
      { kind: 'removeFetcher' },
      {
        kind: 'truncate',
        then: 'truncationCompleted',
        truncateTo: 90,
        fetchOffset: 90,
        recordsToRemove: 10,
        reason: 'uncleanLeaderElection',
        basis: 'divergingEpochEndOffset',
        truncationCompleted: true,
      },
    ])
    const early = transition(entered.next, { type: 'replicasConverged' }, context())
    expectIgnored(early, entered.next, 'guardRejected')

    const truncated = transition(
      entered.next,
      { type: 'truncationCompleted', offset: 90, recordsRemoved: 10, reason: 'uncleanLeaderElection' },
      context(),
    )
    expect(truncated.outcome).toBe('updated')
    expect(truncated.next).toMatchObject({
      state: 'ULE_LOG_TRUNCATION',
      pendingTruncation: null,
      lastTruncation: { offset: 90, removedRecords: 10, reason: 'uncleanLeaderElection' },
    })
    expect(truncated.effects).toEqual([{ kind: 'persistState' }, { kind: 'awaitReplicaConvergence', then: 'replicasConverged' }])

    const mirroring = transition(truncated.next, { type: 'replicasConverged' }, context())
    expect(mirroring.next.state).toBe('MIRRORING')
    expect(kinds(mirroring.effects)).toEqual(['persistState', 'startFetcher'])
  })
})

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
