import { describe, expect, it } from 'vitest'
import { MirrorError } from './errors'
import { downsample, freshnessMs, isFetchStale, LagHistory, offsetLag, timeLagMs } from './lag'

const T0 = 1_764_400_000_000

describe('point-in-time lag', () => {
  it('#13 reports offset lag as max(0, source HW − destination HW)', () => {
    expect(offsetLag(120, 118)).toBe(2)
    expect(offsetLag(120, 120)).toBe(0)
    expect(offsetLag(120, 125)).toBe(0)
  })

  it('reports the age of the oldest unmirrored source record as time lag', () => {
    expect(timeLagMs({ now: T0 + 350, sourceHighWatermark: 120, destinationHighWatermark: 118, oldestUnmirroredTimestamp: T0 })).toBe(350)
  })

  it('reports 0 time lag when caught up, whatever timestamp is given', () => {
    expect(timeLagMs({ now: T0, sourceHighWatermark: 5, destinationHighWatermark: 5, oldestUnmirroredTimestamp: T0 - 9999 })).toBe(0)
    expect(timeLagMs({ now: T0, sourceHighWatermark: 5, destinationHighWatermark: 5, oldestUnmirroredTimestamp: null })).toBe(0)
  })

  it('reports unknown (null) time lag when behind without the record timestamp, and never a negative one', () => {
    expect(timeLagMs({ now: T0, sourceHighWatermark: 9, destinationHighWatermark: 5, oldestUnmirroredTimestamp: null })).toBeNull()
    expect(timeLagMs({ now: T0, sourceHighWatermark: 9, destinationHighWatermark: 5, oldestUnmirroredTimestamp: T0 + 500 })).toBe(0)
  })

  it('measures freshness from the last successful fetch and calls no fetch at all stale', () => {
    expect(freshnessMs(T0 + 1500, T0)).toBe(1500)
    expect(freshnessMs(T0, null)).toBeNull()
    expect(isFetchStale(T0 + 1500, T0, 1000)).toBe(true)
    expect(isFetchStale(T0 + 500, T0, 1000)).toBe(false)
    expect(isFetchStale(T0, null, 1000)).toBe(true)
  })
})

describe('LagHistory', () => {
  it('keeps the last hour at one-second resolution', () => {
    const history = new LagHistory()
    for (let second = 0; second < 3600; second++) history.record(T0 + second * 1000, second, second * 10)
    const points = history.points()
    expect(points).toHaveLength(3600)
    expect(points[0]).toEqual([T0, 0, 0])
    expect(points.at(-1)).toEqual([T0 + 3_599_000, 3599, 35_990])
  })

  it('keeps the worst sample of a slot and an unknown time lag only when nothing known arrived', () => {
    const history = new LagHistory()
    history.record(T0 + 100, 5, null)
    history.record(T0 + 900, 3, 40)
    history.record(T0 + 950, 4, 20)
    history.record(T0 + 1100, 1, null)
    expect(history.points()).toEqual([
      [T0, 5, 40],
      [T0 + 1000, 1, null],
    ])
  })

  it('serves older data from one-minute buckets holding the maximum, up to 24 hours back', () => {
    const history = new LagHistory()
    const start = T0 - (T0 % 60_000)
    // Three hours at one sample per 10 s, with a spike at 00:30:10.
    for (let t = 0; t < 3 * 3600; t += 10) history.record(start + t * 1000, t === 1810 ? 999 : 1, 0)
    const points = history.points()
    const newest = start + (3 * 3600 - 10) * 1000
    const fineHorizon = newest - 3599 * 1000
    const coarse = points.filter(([time]) => time < fineHorizon)
    expect(coarse.every(([time]) => time % 60_000 === 0)).toBe(true)
    expect(coarse.find(([time]) => time === start + 30 * 60_000)).toEqual([start + 30 * 60_000, 999, 0])
    expect(points.filter(([time]) => time >= fineHorizon).length).toBe(360)
    const times = points.map(([time]) => time)
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  it('forgets buckets older than the coarse retention', () => {
    const history = new LagHistory({ fineResolutionMs: 1000, fineRetentionMs: 10_000, coarseResolutionMs: 10_000, coarseRetentionMs: 60_000 })
    history.record(T0, 7, null)
    history.record(T0 + 120_000, 1, null)
    expect(history.points().map(([, lag]) => lag)).toEqual([1])
  })

  it('drops a sample older than what its slot already holds', () => {
    const history = new LagHistory({ fineResolutionMs: 1000, fineRetentionMs: 4000, coarseResolutionMs: 4000, coarseRetentionMs: 8000 })
    history.record(T0 + 10_000, 1, 0)
    history.record(T0 + 2_000, 50, 0)
    expect(history.points().some(([, lag]) => lag === 50)).toBe(false)
  })

  it('answers a time range and re-buckets it to a step, keeping maxima', () => {
    const history = new LagHistory()
    // offset lags 0 1 2 3 0 1 2 3 0 1; time lags unknown every third second
    for (let second = 0; second < 10; second++) history.record(T0 + second * 1000, second % 4, second % 3 === 0 ? null : second)
    expect(history.points({ from: T0 + 2000, to: T0 + 8000 })).toHaveLength(7)
    expect(history.points({ from: T0 + 2000, to: T0 + 8000, stepMs: 5000 })).toEqual([
      [T0, 3, 4],
      [T0 + 5000, 3, 8],
    ])
  })

  it('is empty before the first sample and rejects invalid samples and steps', () => {
    const history = new LagHistory()
    expect(history.points()).toEqual([])
    expect(history.newestTime).toBeNull()
    expect(() => history.record(T0, -1, 0)).toThrow(MirrorError)
    expect(() => history.record(Number.NaN, 1, 0)).toThrow(MirrorError)
    history.record(T0, 1, 0)
    expect(() => history.points({ stepMs: 0 })).toThrow(MirrorError)
    expect(() => new LagHistory({ fineResolutionMs: 0, fineRetentionMs: 1, coarseResolutionMs: 1, coarseRetentionMs: 1 })).toThrow(MirrorError)
  })
})

describe('downsample', () => {
  it('merges points into buckets keeping the maximum of each series', () => {
    expect(
      downsample(
        [
          [0, 1, null],
          [500, 3, 10],
          [1000, 2, 5],
          [1999, 0, null],
        ],
        1000,
      ),
    ).toEqual([
      [0, 3, 10],
      [1000, 2, 5],
    ])
  })
})
