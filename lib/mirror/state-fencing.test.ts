import { describe, expect, it } from 'vitest'
import { readPartitionState } from './mirror-state-records'
import { checkStateFence, fencingAfterWrite, NO_FENCE_CHECK } from './state-fencing'

describe('checkStateFence (KIP-1279.md §5.3, #3)', () => {
  const stored = { stateEpoch: 4, leaderEpoch: 7 }

  it('lets through a writer at the stored epochs or above', () => {
    expect(checkStateFence(stored, { expectedStateEpoch: 4, leaderEpoch: 7 })).toBeNull()
    expect(checkStateFence(stored, { expectedStateEpoch: 5, leaderEpoch: 8 })).toBeNull()
  })

  it('fences a writer whose expected stateEpoch is below the stored one', () => {
    expect(checkStateFence(stored, { expectedStateEpoch: 3, leaderEpoch: 7 })).toBe('FENCED_STATE_EPOCH')
  })

  it('fences a writer from an older leader epoch, checked before the stateEpoch', () => {
    expect(checkStateFence(stored, { expectedStateEpoch: 4, leaderEpoch: 6 })).toBe('FENCED_LEADER_EPOCH')
    expect(checkStateFence(stored, { expectedStateEpoch: 0, leaderEpoch: 6 })).toBe('FENCED_LEADER_EPOCH')
  })

  it('skips a check whose field is -1, and every check for an unfenced write or a key never written', () => {
    expect(checkStateFence(stored, { expectedStateEpoch: NO_FENCE_CHECK, leaderEpoch: 7 })).toBeNull()
    expect(checkStateFence(stored, { expectedStateEpoch: 4, leaderEpoch: NO_FENCE_CHECK })).toBeNull()
    expect(checkStateFence(stored, { expectedStateEpoch: 0, leaderEpoch: NO_FENCE_CHECK })).toBe('FENCED_STATE_EPOCH')
    expect(checkStateFence(stored, { expectedStateEpoch: NO_FENCE_CHECK, leaderEpoch: 0 })).toBe('FENCED_LEADER_EPOCH')
    expect(checkStateFence(stored, undefined)).toBeNull()
    expect(checkStateFence(null, { expectedStateEpoch: 0, leaderEpoch: 0 })).toBeNull()
  })
})

describe('fencingAfterWrite', () => {
  it('takes the written stateEpoch and keeps the highest writer epoch', () => {
    expect(fencingAfterWrite({ stateEpoch: 4, leaderEpoch: 7 }, { stateEpoch: 5, leaderEpoch: 9 })).toEqual({ stateEpoch: 5, leaderEpoch: 9 })
    // An unfenced write (-1) never lowers the epoch a later stale writer is checked against.
    expect(fencingAfterWrite({ stateEpoch: 4, leaderEpoch: 7 }, { stateEpoch: 5, leaderEpoch: -1 })).toEqual({ stateEpoch: 5, leaderEpoch: 7 })
    expect(fencingAfterWrite(null, { stateEpoch: 1, leaderEpoch: 0 })).toEqual({ stateEpoch: 1, leaderEpoch: 0 })
    expect(fencingAfterWrite(null, { stateEpoch: 1, leaderEpoch: -1 })).toEqual({ stateEpoch: 1, leaderEpoch: -1 })
  })

  it('reads the epochs from a partition record, -1 when a record has none', () => {
    expect(readPartitionState({ topic: 't', partition: 0, state: 'MIRRORING', stateEpoch: 3, leaderEpoch: 2 })).toMatchObject({ stateEpoch: 3, leaderEpoch: 2 })
    expect(readPartitionState({ topic: 't', partition: 0, state: 'MIRRORING' })).toMatchObject({ stateEpoch: -1, leaderEpoch: -1 })
    expect(readPartitionState({ topic: 't', partition: 0, state: 'MIRRORING', stateEpoch: -3, leaderEpoch: 1.5 })).toMatchObject({ stateEpoch: -1, leaderEpoch: -1 })
  })
})
