import { describe, expect, it } from 'vitest'
import { divergenceLong, divergenceShort } from './divergence-text'

describe('what a FAILED partition says after an unclean leader election on its source', () => {
  const diverged = { epoch: 4, offset: 90, truncateTo: 90, recordsToCut: 10, logEndOffset: 100 }

  it('names the epoch and the records that would be cut in the row', () => {
    expect(divergenceShort(diverged)).toBe('diverged at epoch 4 · 10 records would be cut')
    expect(divergenceShort({ ...diverged, recordsToCut: 1 })).toBe('diverged at epoch 4 · 1 record would be cut')
    expect(divergenceShort({ ...diverged, recordsToCut: 0 })).toBe('diverged at epoch 4 · nothing to cut')
  })

  it('gives the offsets of the cut, why nothing was cut, and the ways on, on the partition page', () => {
    const text = divergenceLong(diverged)
    expect(text.what).toContain('leader epoch 4, which ends at offset 90')
    expect(text.cut).toBe("The destination's records from offset 90 to 99 (10 records) are not in the source's log; a truncation would cut them, and mirror.support.unclean.leader.election is off for this topic, so nothing was cut.")
    expect(divergenceLong({ ...diverged, truncateTo: null, recordsToCut: 100 }).cut).toMatch(/^All the destination's records \(100 records\) are not/)
    expect(divergenceLong({ ...diverged, recordsToCut: 0, truncateTo: 100 }).cut).toBe('The destination holds nothing beyond that point: a truncation would remove no record.')
    expect(text.next).toContain('fail over to keep')
  })
})
