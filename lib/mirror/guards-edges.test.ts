import { describe, expect, it } from 'vitest'
import { hasDivergingEpoch, isPauseSafeAfterFailure } from './guards'

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
