import { describe, expect, it } from 'vitest'
import { LAG_FRESH_MS, mirrorLag, partitionLag, timeLagAt, type PartitionLagInput } from './partition-lag'

const T0 = 1_764_400_000_000
const base: PartitionLagInput = { state: 'MIRRORING', now: T0, sourceHighWatermark: 120, destinationHighWatermark: 118, oldestUnmirroredTimestamp: T0 - 350, lastFetchAt: T0 - 200 }

describe('partitionLag', () => {
  it('is exact while the source answered within the freshness window', () => {
    expect(partitionLag(base)).toEqual({ basis: 'known', offsetLag: 2, timeLagMs: 350, asOf: T0 - 200, timeLagFrom: null })
    expect(partitionLag({ ...base, lastFetchAt: T0 - LAG_FRESH_MS }).basis).toBe('known')
  })

  it('turns into a lower bound that grows with the clock when the source is silent', () => {
    const failed = { ...base, state: 'FAILED' as const, sourceHighWatermark: 62, destinationHighWatermark: 62, oldestUnmirroredTimestamp: null, lastFetchAt: T0 }
    expect(partitionLag({ ...failed, now: T0 + 31_000 })).toEqual({ basis: 'lowerBound', offsetLag: 0, timeLagMs: 31_000, asOf: T0, timeLagFrom: T0 })
    expect(partitionLag({ ...failed, now: T0 + 45_000 }).timeLagMs).toBe(45_000)
  })

  it('grows from the oldest unmirrored record when the destination was already behind at the last fetch', () => {
    const behind = { ...base, state: 'FAILED' as const, sourceHighWatermark: 204, destinationHighWatermark: 62, oldestUnmirroredTimestamp: T0 - 5_000, lastFetchAt: T0 }
    expect(partitionLag({ ...behind, now: T0 + 31_000 })).toEqual({ basis: 'lowerBound', offsetLag: 142, timeLagMs: 36_000, asOf: T0, timeLagFrom: T0 - 5_000 })
  })

  it("stands as of Mirrorboard's own later reading of a silent source, never as of an older one", () => {
    // The link cut at T0; the dashboard's own view read 230 at T0 + 25 s (server/engine/lag/source-observer.ts).
    const observed = { ...base, state: 'FAILED' as const, sourceHighWatermark: 230, destinationHighWatermark: 62, oldestUnmirroredTimestamp: T0 - 5_000, lastFetchAt: T0, sourceObservedAt: T0 + 25_000 }
    expect(partitionLag({ ...observed, now: T0 + 31_000 })).toEqual({ basis: 'lowerBound', offsetLag: 168, timeLagMs: 36_000, asOf: T0 + 25_000, timeLagFrom: T0 - 5_000 })
    expect(partitionLag({ ...observed, sourceObservedAt: T0 - 1_000, now: T0 + 31_000 }).asOf).toBe(T0)
  })

  it('calls a MIRRORING partition whose fetches stalled a lower bound too, and PAUSED ones', () => {
    expect(partitionLag({ ...base, now: base.lastFetchAt! + LAG_FRESH_MS + 1 }).basis).toBe('lowerBound')
    expect(partitionLag({ ...base, state: 'PAUSED' }).basis).toBe('lowerBound')
  })

  it('knows nothing before the first fetch, and gives no lag at all to partitions that do not mirror', () => {
    expect(partitionLag({ ...base, sourceHighWatermark: null, lastFetchAt: null })).toMatchObject({ basis: 'unknown', offsetLag: null, timeLagMs: null })
    for (const state of ['STOPPED', 'STOPPING', 'UNKNOWN'] as const) expect(partitionLag({ ...base, state })).toMatchObject({ basis: 'none', offsetLag: null, timeLagMs: null, asOf: null })
  })

  it('keeps a lower bound growing on a screen from timeLagFrom, and an exact figure as read', () => {
    expect(timeLagAt({ timeLagMs: 31_000, timeLagFrom: T0 }, T0 + 40_000)).toBe(40_000)
    expect(timeLagAt({ timeLagMs: 350, timeLagFrom: null }, T0 + 40_000)).toBe(350)
    expect(timeLagAt({ timeLagMs: null }, T0)).toBeNull()
  })
})

describe('mirrorLag', () => {
  const known = { state: 'MIRRORING' as const, offsetLag: 4, timeLagMs: 300, lagKnown: true, lagAsOf: T0 - 100 }

  it('adds offset lag up, takes the worst time lag and the oldest reading', () => {
    expect(mirrorLag([known, { ...known, offsetLag: 6, timeLagMs: 100, lagAsOf: T0 - 300 }], T0)).toMatchObject({
      maxOffsetLag: 6,
      totalOffsetLag: 10,
      maxTimeLagMs: 300,
      known: true,
      asOf: T0 - 300,
      lowerBounds: 0,
    })
  })

  it('never reads caught up when every partition FAILED: lower bounds, growing', () => {
    const failed = { state: 'FAILED' as const, offsetLag: 0, timeLagMs: 31_000, lagKnown: false, lagAsOf: T0 - 31_000, timeLagFrom: T0 - 31_000 }
    const figures = mirrorLag([failed, { ...failed, offsetLag: 142 }], T0 + 10_000)
    expect(figures).toMatchObject({ maxOffsetLag: 142, totalOffsetLag: 142, maxTimeLagMs: 41_000, known: false, asOf: T0 - 31_000, lowerBounds: 2 })
  })

  it('has no figures while a partition lag is unknown, nor for a mirror whose partitions all stopped', () => {
    expect(mirrorLag([known, { state: 'MIRRORING', offsetLag: null, timeLagMs: null }], T0)).toMatchObject({ maxOffsetLag: null, totalOffsetLag: null, maxTimeLagMs: null, known: false })
    expect(mirrorLag([{ state: 'STOPPED', offsetLag: null, timeLagMs: null }], T0)).toMatchObject({ maxOffsetLag: null, known: false, counted: 0 })
    expect(mirrorLag([known, { state: 'STOPPED', offsetLag: null, timeLagMs: null }], T0)).toMatchObject({ maxOffsetLag: 4, known: true, counted: 1 })
  })
})
