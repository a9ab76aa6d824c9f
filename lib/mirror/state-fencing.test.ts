import { describe, expect, it } from 'vitest'
import { readPartitionState } from './mirror-state-records'
import { checkStateFence, judgeStateWrites, fencedWritesMessage, fencingAfterWrite, NO_FENCE_CHECK } from './state-fencing'

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

describe('judgeStateWrites (one append of several entries)', () => {
  const record = (stateEpoch: number, leaderEpoch: number) => JSON.stringify({ topic: 't', partition: 0, state: 'MIRRORING', stateEpoch, leaderEpoch })
  const stored = new Map([['t-0', { stateEpoch: 4, leaderEpoch: 2 }]])
  const storedOf = (key: string) => stored.get(key) ?? null

  it('judges each entry after the earlier ones of the same batch', () => {
    const entries = [
      { key: 't-0', value: record(5, 2), fence: { expectedStateEpoch: 4, leaderEpoch: 2 } },
      // Named the stored epoch 4, but the first entry of this batch wrote 5 already.
      { key: 't-0', value: record(5, 2), fence: { expectedStateEpoch: 4, leaderEpoch: 2 } },
    ]
    expect(judgeStateWrites(entries, storedOf).fenced).toEqual([{ key: 't-0', code: 'FENCED_STATE_EPOCH', storedStateEpoch: 5, storedLeaderEpoch: 2 }])
    expect(judgeStateWrites(entries.slice(0, 1), storedOf)).toEqual({ fenced: [], fencingAfter: new Map([['t-0', { stateEpoch: 5, leaderEpoch: 2 }]]) })
  })

  it('lets a tombstone clear the key for the entries after it, and keeps what an unreadable value cannot change', () => {
    expect(judgeStateWrites([{ key: 't-0', value: null }, { key: 't-0', value: record(1, 0), fence: { expectedStateEpoch: 0, leaderEpoch: 0 } }], storedOf).fenced).toEqual([])
    expect(judgeStateWrites([{ key: 't-0', value: 'not json' }, { key: 't-0', value: record(5, 1), fence: { expectedStateEpoch: 4, leaderEpoch: 1 } }], storedOf).fenced).toEqual([
      { key: 't-0', code: 'FENCED_LEADER_EPOCH', storedStateEpoch: 4, storedLeaderEpoch: 2 },
    ])
  })

  it('names every fenced key in the message', () => {
    expect(fencedWritesMessage([{ key: 't-0', code: 'FENCED_LEADER_EPOCH', storedStateEpoch: 4, storedLeaderEpoch: 2 }])).toBe(
      'stale __mirror_state writer: t-0 (FENCED_LEADER_EPOCH, stored stateEpoch 4, leader epoch 2)',
    )
  })
})
