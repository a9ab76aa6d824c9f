import { describe, expect, it } from 'vitest'
import { NON_RETRYABLE_ATTEMPT } from '@/lib/mirror/constants'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { shouldStopAfterRestart, stopProgressOf, type PartitionStopView } from './operation-progress'

function view(state: MirrorPartitionState, patch: Partial<PartitionStopView> = {}): PartitionStopView {
  return { state, previousState: 'MIRRORING', retryAttempt: 0, stateEpoch: 7, ...patch }
}

describe('stopProgressOf', () => {
  it.each([
    ['STOPPED', view('STOPPED'), 'stopped'],
    ['STOPPING', view('STOPPING'), 'stopping'],
    ['FAILED out of STOPPING with retries left', view('FAILED', { previousState: 'STOPPING', retryAttempt: 2 }), 'stopping'],
    ['FAILED out of STOPPED (lifting read-only) with retries left', view('FAILED', { previousState: 'STOPPED', retryAttempt: 1 }), 'stopping'],
    ['FAILED out of STOPPING for good', view('FAILED', { previousState: 'STOPPING', retryAttempt: NON_RETRYABLE_ATTEMPT }), 'failed'],
    ['FAILED out of MIRRORING', view('FAILED', { previousState: 'MIRRORING', retryAttempt: 3 }), 'notStopped'],
    ['MIRRORING', view('MIRRORING'), 'notStopped'],
    ['PAUSED', view('PAUSED'), 'notStopped'],
    ['UNKNOWN', view('UNKNOWN'), 'notStopped'],
  ] as const)('%s is %s', (_, value, progress) => {
    expect(stopProgressOf(value)).toBe(progress)
  })
})

describe('shouldStopAfterRestart', () => {
  it('leaves STOPPING and STOPPED partitions to their own restore', () => {
    expect(shouldStopAfterRestart(view('STOPPING', { stateEpoch: 7 }), 7)).toBe(false)
    expect(shouldStopAfterRestart(view('STOPPED', { stateEpoch: 9 }), 7)).toBe(false)
  })

  it('leaves a partition no stop can enter (UNKNOWN) to its restore', () => {
    expect(shouldStopAfterRestart(view('UNKNOWN'), 7)).toBe(false)
  })

  it('stops a partition that has not moved since the operation was accepted, whatever its state', () => {
    expect(shouldStopAfterRestart(view('PAUSED'), 7)).toBe(true)
    expect(shouldStopAfterRestart(view('FAILED', { previousState: 'STOPPING', retryAttempt: NON_RETRYABLE_ATTEMPT }), 7)).toBe(true)
  })

  it('stops a partition that moved but never entered this stop', () => {
    expect(shouldStopAfterRestart(view('MIRRORING', { stateEpoch: 9 }), 7)).toBe(true)
    expect(shouldStopAfterRestart(view('FAILED', { previousState: 'MIRRORING', stateEpoch: 8 }), 7)).toBe(true)
  })

  it('leaves a partition that failed out of this stop to its retries or to an operator', () => {
    expect(shouldStopAfterRestart(view('FAILED', { previousState: 'STOPPING', retryAttempt: 1, stateEpoch: 9 }), 7)).toBe(false)
    expect(shouldStopAfterRestart(view('FAILED', { previousState: 'STOPPING', retryAttempt: NON_RETRYABLE_ATTEMPT, stateEpoch: 9 }), 7)).toBe(false)
  })
})
