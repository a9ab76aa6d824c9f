import { describe, expect, it } from 'vitest'
import type { MirrorEvent } from './events'
import { GUARDS, hasDivergingEpoch, isPauseSafeAfterFailure } from './guards'
import { createMirrorPartition } from './partition'
import { INITIAL_STOPPING_PROGRESS } from './stopping'

// Guard edges found unpinned by mutation testing.

describe('hasDivergingEpoch', () => {
  it('#37 #38 a divergence at offset 0 is a divergence; (-1, -1) and no field are not', () => {
    expect(hasDivergingEpoch({ divergingEpoch: { epoch: 0, offset: 0 } })).toBe(true)
    expect(hasDivergingEpoch({ divergingEpoch: { epoch: -1, offset: -1 } })).toBe(false)
    expect(hasDivergingEpoch({ divergingEpoch: null })).toBe(false)
    expect(hasDivergingEpoch({})).toBe(false)
  })
})

describe('isPauseSafeAfterFailure', () => {
  it('#5 a partition that failed while MIRRORING, PAUSING or PAUSED may be paused; one that failed elsewhere may not', () => {
    const failedFrom = (previousState: 'MIRRORING' | 'PAUSING' | 'PAUSED' | 'PREPARING' | 'EPOCH_FENCING') => isPauseSafeAfterFailure({ state: 'FAILED', previousState, stopping: null })
    expect([failedFrom('MIRRORING'), failedFrom('PAUSING'), failedFrom('PAUSED')]).toEqual([true, true, true])
    expect([failedFrom('PREPARING'), failedFrom('EPOCH_FENCING')]).toEqual([false, false])
    expect(isPauseSafeAfterFailure({ state: 'FAILED', previousState: 'PAUSING', stopping: { step: 'bumpEpoch', lastMirrorPosition: null } })).toBe(false)
    expect(isPauseSafeAfterFailure({ state: 'MIRRORING', previousState: 'PAUSING', stopping: null })).toBe(false)
  })
})

describe('GUARDS of the event table', () => {
  const partition = createMirrorPartition(0)
  const ctx = { mirrorSupportUncleanLeaderElection: false }

  it('an event-specific guard is false for any other event, even one whose fields would pass it', () => {
    // Fields of the guarded event on another event type: only the event the guard belongs to may pass it.
    const lookalike = { type: 'fetchSucceeded', observedEpoch: 10, leaderEpoch: 10, batchEpoch: 20, step: 'removeFetcher' } as unknown as MirrorEvent
    expect(GUARDS.needsProactiveEpochBump(partition, lookalike, ctx)).toBe(false)
    expect(GUARDS.isBatchEpochAboveLeaderEpoch(partition, lookalike, ctx)).toBe(false)
    expect(GUARDS.isEpochBumpVisible({ ...partition, requestedLeaderEpoch: 5 }, lookalike, ctx)).toBe(false)
    expect(GUARDS.isExpectedStoppingStep({ ...partition, stopping: INITIAL_STOPPING_PROGRESS }, lookalike, ctx)).toBe(false)
    // The guarded events themselves pass.
    expect(GUARDS.needsProactiveEpochBump(partition, { type: 'epochBumpThresholdReached', observedEpoch: 10, leaderEpoch: 10 }, ctx)).toBe(true)
    expect(GUARDS.isEpochBumpVisible({ ...partition, requestedLeaderEpoch: 5 }, { type: 'epochBumpCompleted', leaderEpoch: 5 }, ctx)).toBe(true)
    expect(GUARDS.isExpectedStoppingStep({ ...partition, stopping: INITIAL_STOPPING_PROGRESS }, { type: 'stoppingStepCompleted', step: 'removeFetcher' }, ctx)).toBe(true)
  })

  it('no STOPPING progress is neither an expected step nor a finished sequence', () => {
    expect(GUARDS.isExpectedStoppingStep(partition, { type: 'stoppingStepCompleted', step: 'removeFetcher' }, ctx)).toBe(false)
    expect(GUARDS.isStoppingSequenceDone(partition, { type: 'stopCompleted' }, ctx)).toBe(false)
    expect(GUARDS.isStoppingSequenceDone({ ...partition, stopping: { step: 'done', lastMirrorPosition: { epoch: 1, offset: 3 } } }, { type: 'stopCompleted' }, ctx)).toBe(true)
  })
})
