import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { formatEpochCheckpoint, LeaderEpochCache, parseEpochCheckpoint, parseOffsetCheckpoint, formatOffsetCheckpoint } from './leader-epoch-cache'

const cacheOf = (...entries: Array<[number, number]>) => new LeaderEpochCache(entries.map(([epoch, startOffset]) => ({ epoch, startOffset })))

describe('LeaderEpochCache.assign', () => {
  it('keeps the first start offset of an epoch while it is the latest', () => {
    const cache = cacheOf([1, 0])
    expect(cache.assign(1, 10)).toBe(false)
    expect(cache.entries()).toEqual([{ epoch: 1, startOffset: 0 }])
  })

  it('enforces monotonically increasing epochs: a lower epoch drops the newer entries', () => {
    const cache = cacheOf([1, 0], [3, 10], [5, 20])
    expect(cache.assign(4, 30)).toBe(true)
    expect(cache.entries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 10 },
      { epoch: 4, startOffset: 30 },
    ])
  })

  it('enforces monotonically increasing start offsets', () => {
    const cache = cacheOf([1, 0], [3, 10], [5, 20])
    cache.assign(6, 15)
    expect(cache.entries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 10 },
      { epoch: 6, startOffset: 15 },
    ])
  })

  it('rejects negative epochs and offsets with a RangeError', () => {
    expect(() => cacheOf().assign(-1, 0)).toThrow(RangeError)
    expect(() => cacheOf().assign(0, -5)).toThrow(RangeError)
  })

  it('stays strictly increasing in both fields whatever is assigned', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(50), fc.nat(1000)), { maxLength: 60 }), (assignments) => {
        const cache = new LeaderEpochCache()
        for (const [epoch, offset] of assignments) cache.assign(epoch, offset)
        const entries = cache.entries()
        for (let i = 1; i < entries.length; i++) {
          expect(entries[i]!.epoch).toBeGreaterThan(entries[i - 1]!.epoch)
          expect(entries[i]!.startOffset).toBeGreaterThan(entries[i - 1]!.startOffset)
        }
      }),
    )
  })
})

describe('LeaderEpochCache.endOffsetFor (KIP-101)', () => {
  const cache = cacheOf([2, 0], [4, 10], [7, 25])
  it.each([
    ['the latest epoch ends at the log end offset', 7, { leaderEpoch: 7, endOffset: 40 }],
    ['a cached older epoch ends where the next starts', 4, { leaderEpoch: 4, endOffset: 25 }],
    ['an uncached epoch between two answers with the largest epoch below it', 5, { leaderEpoch: 4, endOffset: 25 }],
    ['the first epoch ends where the second starts', 2, { leaderEpoch: 2, endOffset: 10 }],
    ['an epoch below the first answers with the first start offset (Kafka)', 1, { leaderEpoch: 1, endOffset: 0 }],
    ['an epoch above every epoch is undefined', 9, { leaderEpoch: -1, endOffset: -1 }],
    ['epoch -1 is undefined', -1, { leaderEpoch: -1, endOffset: -1 }],
  ])('%s', (_name, epoch, expected) => {
    expect(cache.endOffsetFor(epoch, 40)).toEqual(expected)
  })

  it('is undefined on an empty cache', () => {
    expect(new LeaderEpochCache().endOffsetFor(0, 10)).toEqual({ leaderEpoch: -1, endOffset: -1 })
  })

  it('finds the epoch of an offset', () => {
    expect([0, 9, 10, 24, 25, 100].map((o) => cache.epochForOffset(o))).toEqual([2, 2, 4, 4, 7, 7])
    expect(cacheOf([3, 5]).epochForOffset(2)).toBe(-1)
  })
})

describe('LeaderEpochCache truncation', () => {
  it('truncateFromEnd removes entries starting at or after the new end', () => {
    const cache = cacheOf([2, 0], [4, 10], [7, 25])
    expect(cache.truncateFromEnd(25)).toBe(true)
    expect(cache.latestEpoch()).toBe(4)
    expect(cache.truncateFromEnd(11)).toBe(false)
    cache.truncateFromEnd(0)
    expect(cache.isEmpty).toBe(true)
    expect(cache.latestEpoch()).toBe(-1)
  })

  it('truncateFromStart keeps the epoch covering the new start, moved to it', () => {
    const cache = cacheOf([2, 0], [4, 10], [7, 25])
    expect(cache.truncateFromStart(12)).toBe(true)
    expect(cache.entries()).toEqual([
      { epoch: 4, startOffset: 12 },
      { epoch: 7, startOffset: 25 },
    ])
    expect(cache.truncateFromStart(5)).toBe(false)
  })
})

describe('checkpoint format', () => {
  it("writes Kafka's leader-epoch-checkpoint text", () => {
    expect(formatEpochCheckpoint([{ epoch: 0, startOffset: 0 }, { epoch: 3, startOffset: 120 }])).toBe('0\n2\n0 0\n3 120\n')
    expect(parseEpochCheckpoint('0\n2\n0 0\n3 120\n')).toEqual([{ epoch: 0, startOffset: 0 }, { epoch: 3, startOffset: 120 }])
    expect(parseEpochCheckpoint('0\n0\n')).toEqual([])
  })

  it('refuses malformed checkpoints', () => {
    expect(() => parseEpochCheckpoint('1\n0\n')).toThrow(/version/)
    expect(() => parseEpochCheckpoint('0\n2\n0 0\n')).toThrow(/count/)
    expect(() => parseEpochCheckpoint('0\n1\n0 x\n')).toThrow(/line/)
  })

  it('writes single-offset checkpoints in the same layout', () => {
    expect(formatOffsetCheckpoint(42)).toBe('0\n1\n42\n')
    expect(parseOffsetCheckpoint('0\n1\n42\n')).toBe(42)
  })
})
