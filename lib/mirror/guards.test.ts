import { describe, expect, it } from 'vitest'
import {
  epochBumpTarget,
  GUARDS,
  hasDivergingEpoch,
  hasFailureDetails,
  hasLastMirrorPosition,
  isCaughtUp,
  isEpochCurrent,
  isPauseSafeAfterFailure,
  isReadOnly,
  isReadyForFetch,
  isRetryable,
  needsProactiveEpochBump,
} from './guards'
import { createMirrorPartition, withChanges } from './partition'
import { MIRROR_PARTITION_STATES } from './states'

const fresh = createMirrorPartition(0)

describe('epoch predicates', () => {
  it('#16 accepts a batch whose epoch is at or below the destination leader epoch, never above', () => {
    expect(isEpochCurrent(7, 7)).toBe(true)
    expect(isEpochCurrent(6, 7)).toBe(true)
    expect(isEpochCurrent(8, 7)).toBe(false)
  })

  it('#17 wants a proactive bump when an epoch is within 3 of the leader epoch (epoch > leader − 3)', () => {
    expect(needsProactiveEpochBump(4, 7)).toBe(false)
    expect(needsProactiveEpochBump(5, 7)).toBe(true)
    expect(needsProactiveEpochBump(7, 7)).toBe(true)
    expect(needsProactiveEpochBump(9, 7)).toBe(true)
  })

  it('#17 targets the source epoch plus 10', () => {
    expect(epochBumpTarget(5, 7)).toBe(15)
    expect(epochBumpTarget(0, 0)).toBe(10)
  })

  it('#18 never targets an epoch below the current leader epoch', () => {
    expect(epochBumpTarget(5, 30)).toBe(30)
    for (let source = 0; source < 50; source++) {
      for (const current of [0, 9, 10, 25, 60]) expect(epochBumpTarget(source, current)).toBeGreaterThanOrEqual(current)
    }
  })

  it('sees a divergence only when the fetch response carries a diverging epoch with an end offset', () => {
    expect(hasDivergingEpoch({})).toBe(false)
    expect(hasDivergingEpoch({ divergingEpoch: null })).toBe(false)
    expect(hasDivergingEpoch({ divergingEpoch: { epoch: -1, offset: -1 } })).toBe(false)
    expect(hasDivergingEpoch({ divergingEpoch: { epoch: 3, offset: 40 } })).toBe(true)
  })
})

describe('partition predicates', () => {
  it('#13 counts a partition caught up when the destination high watermark reached the source one', () => {
    expect(isCaughtUp(120, 118)).toBe(false)
    expect(isCaughtUp(120, 120)).toBe(true)
    expect(isCaughtUp(120, 121)).toBe(true)
  })

  it('#6 treats retryAttempt −1 as non-retryable and anything else as retryable', () => {
    expect(isRetryable({ retryAttempt: -1 })).toBe(false)
    expect(isRetryable({ retryAttempt: 0 })).toBe(true)
    expect(isRetryable({ retryAttempt: 7 })).toBe(true)
  })

  it('sees failure details while an error or a retry count is recorded', () => {
    expect(hasFailureDetails(fresh)).toBe(false)
    expect(hasFailureDetails({ retryAttempt: 2, error: null })).toBe(true)
    expect(hasFailureDetails({ retryAttempt: 0, error: 'x' })).toBe(true)
  })

  it('#8 #9 keeps every state but STOPPED read-only', () => {
    expect(MIRROR_PARTITION_STATES.filter((state) => !isReadOnly(state))).toEqual(['STOPPED'])
  })

  it('fetches only while MIRRORING', () => {
    expect(MIRROR_PARTITION_STATES.filter((state) => isReadyForFetch({ state }))).toEqual(['MIRRORING'])
  })

  it('allows pausing a failed partition only when it failed while mirroring or pausing, with no stop under way', () => {
    const failed = withChanges(fresh, { state: 'FAILED', retryAttempt: 1 })
    expect(isPauseSafeAfterFailure({ ...failed, previousState: 'MIRRORING' })).toBe(true)
    expect(isPauseSafeAfterFailure({ ...failed, previousState: 'PAUSED' })).toBe(true)
    expect(isPauseSafeAfterFailure({ ...failed, previousState: 'PREPARING' })).toBe(false)
    expect(isPauseSafeAfterFailure({ ...failed, previousState: 'ULE_LOG_TRUNCATION' })).toBe(false)
    expect(
      isPauseSafeAfterFailure({ ...failed, previousState: 'MIRRORING', stopping: { step: 'pidReset', lastMirrorPosition: null } }),
    ).toBe(false)
    expect(isPauseSafeAfterFailure({ ...failed, state: 'MIRRORING', previousState: 'MIRRORING' })).toBe(false)
  })

  it('treats (−1, −1) as no last mirror position', () => {
    expect(hasLastMirrorPosition({ lastMirrorPosition: null })).toBe(false)
    expect(hasLastMirrorPosition({ lastMirrorPosition: { epoch: -1, offset: -1 } })).toBe(false)
    expect(hasLastMirrorPosition({ lastMirrorPosition: { epoch: 0, offset: 3 } })).toBe(true)
  })
})

describe('table guards', () => {
  const ctx = { mirrorSupportUncleanLeaderElection: false }

  it('read the unclean-election flag from the context only', () => {
    expect(GUARDS.isUncleanLeaderElectionSupported(fresh, { type: 'replicasConverged' }, ctx)).toBe(false)
    expect(GUARDS.isUncleanLeaderElectionSupported(fresh, { type: 'replicasConverged' }, { mirrorSupportUncleanLeaderElection: true })).toBe(true)
  })

  it('reject events of another type than the one they are written for', () => {
    expect(GUARDS.isBatchEpochAboveLeaderEpoch(fresh, { type: 'epochBumpCompleted', leaderEpoch: 99 }, ctx)).toBe(false)
    expect(GUARDS.needsProactiveEpochBump(fresh, { type: 'batchEpochExceeded', batchEpoch: 9, leaderEpoch: 7 }, ctx)).toBe(false)
    expect(GUARDS.isExpectedStoppingStep(fresh, { type: 'stopCompleted' }, ctx)).toBe(false)
  })

  it('see an epoch bump only once metadata reaches the requested epoch', () => {
    const fencing = withChanges(fresh, { state: 'EPOCH_FENCING', requestedLeaderEpoch: 18 })
    expect(GUARDS.isEpochBumpVisible(fencing, { type: 'epochBumpCompleted', leaderEpoch: 17 }, ctx)).toBe(false)
    expect(GUARDS.isEpochBumpVisible(fencing, { type: 'epochBumpCompleted', leaderEpoch: 19 }, ctx)).toBe(true)
    expect(GUARDS.isEpochBumpVisible(fresh, { type: 'epochBumpCompleted', leaderEpoch: 19 }, ctx)).toBe(false)
  })

  it('consider the stopping sequence done only at its last step', () => {
    const stopping = withChanges(fresh, { state: 'STOPPING', stopping: { step: 'pidReset', lastMirrorPosition: { epoch: 1, offset: 5 } } })
    expect(GUARDS.isStoppingSequenceDone(stopping, { type: 'stopCompleted' }, ctx)).toBe(false)
    const done = withChanges(stopping, { stopping: { step: 'done', lastMirrorPosition: { epoch: 1, offset: 5 } } })
    expect(GUARDS.isStoppingSequenceDone(done, { type: 'stopCompleted' }, ctx)).toBe(true)
  })
})
