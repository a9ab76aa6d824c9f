import { describe, expect, it } from 'vitest'
import { FAILURE_MESSAGES, NON_RETRYABLE_ATTEMPT } from './constants'
import { MirrorError } from './errors'
import type { MirrorEvent } from './events'
import { createMirrorPartition, withChanges, type MirrorPartitionValue } from './partition'
import { isValidTransition, MIRROR_EVENT_TYPES, MIRROR_PARTITION_STATES, type MirrorEventType, type MirrorPartitionState } from './states'
import { STOPPING_STEPS } from './stopping'
import {
  transition,
} from './transition'
import { context, expectIgnored, kinds, NOW, SAMPLE_EVENTS, SAMPLE_PARTITIONS } from './testing/transition-fixtures'

// FIXTURES

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

  it('#37 the FAILED partition says what diverged: the epoch and offset, and the records a truncation would cut; a recovery forgets it', () => {
    const ctx = context({ mirrorSupportUncleanLeaderElection: false })
    const failed = transition(SAMPLE_PARTITIONS.MIRRORING, SAMPLE_EVENTS.divergenceDetected, ctx)
    expect(failed.next.divergence).toEqual({ epoch: 4, offset: 90, truncateTo: 90, recordsToCut: 10, logEndOffset: 100 })
    // No common epoch: the whole log from the diverging offset (the decision's own rule), figures kept whole.
    const unrelated = transition(SAMPLE_PARTITIONS.MIRRORING, { ...SAMPLE_EVENTS.divergenceDetected, localEndOffsetForEpoch: null, divergingEpoch: { epoch: 2, offset: 40 } }, ctx)
    expect(unrelated.next.divergence).toMatchObject({ epoch: 2, offset: 40, recordsToCut: 60 })
    const recovered = transition(failed.next, { type: 'recoverRequested' }, ctx)
    expect(recovered.next.state).toBe('MIRRORING')
    expect(recovered.next.divergence).toBeNull()
    // Another failure is not a divergence.
    expect(transition(SAMPLE_PARTITIONS.MIRRORING, { type: 'failed', error: 'x', retryable: true }, ctx).next.divergence).toBeUndefined()
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
