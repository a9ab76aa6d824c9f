import { describe, expect, it } from 'vitest'
import { NON_RETRYABLE_ATTEMPT } from './constants'
import { CLEARED_FAILURE, createMirrorPartition, isNonRetryable, withChanges, type MirrorPartitionValue } from './partition'

describe('createMirrorPartition', () => {
  it('is a partition never seen: UNKNOWN with no previous state, epoch 0, healthy, no history, since now', () => {
    expect(createMirrorPartition(1_700_000_000_000)).toEqual({
      state: 'UNKNOWN',
      stateEpoch: 0,
      previousState: 'UNKNOWN',
      stateSince: 1_700_000_000_000,
      retryAttempt: 0,
      error: null,
      lastMirrorPosition: null,
      lastTruncation: null,
      pendingTruncation: null,
      requestedLeaderEpoch: null,
      stopping: null,
    })
  })
})

describe('withChanges', () => {
  it('applies the patch to a copy and leaves the engine’s own fields and the original alone', () => {
    const original = { ...createMirrorPartition(0), topic: 'orders', partition: 3 }
    const changed = withChanges(original, { state: 'PREPARING', stateEpoch: 1, previousState: 'UNKNOWN', stateSince: 50 })
    expect(changed).toEqual({ ...original, state: 'PREPARING', stateEpoch: 1, stateSince: 50 })
    expect(changed.topic).toBe('orders')
    expect(changed.partition).toBe(3)
    expect(original.state).toBe('UNKNOWN')
    expect(changed).not.toBe(original)
  })

  it('clears the failure details together with CLEARED_FAILURE', () => {
    const failed = withChanges(createMirrorPartition(0), { state: 'FAILED', retryAttempt: 3, error: 'NOT_LEADER_OR_FOLLOWER' })
    expect(withChanges(failed, CLEARED_FAILURE)).toMatchObject({ state: 'FAILED', retryAttempt: 0, error: null })
    expect(CLEARED_FAILURE).toEqual({ retryAttempt: 0, error: null })
  })
})

describe('isNonRetryable', () => {
  const attempt = (retryAttempt: number): Pick<MirrorPartitionValue, 'retryAttempt'> => ({ retryAttempt })

  it('is true only for the non-retryable marker -1, not for a healthy partition or a counted retry', () => {
    expect(NON_RETRYABLE_ATTEMPT).toBe(-1)
    expect(isNonRetryable(attempt(-1))).toBe(true)
    expect([0, 1, 2, 10].map((n) => isNonRetryable(attempt(n)))).toEqual([false, false, false, false])
  })
})
