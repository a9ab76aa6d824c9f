import { describe, expect, it } from 'vitest'
import { lagUnknownOf } from './mirror-snapshot'
import { OTHER_TOPICS_LABEL, aggregateLag, appendLagSample, describeLagChart, lagTrend, type LagSeriesInput } from './lag-series'

const grid = { stepMs: 1_000, rangeMs: 4_000, from: 10_000, to: 14_000, maxGroups: 8 }

const series: LagSeriesInput[] = [
  { topic: 'orders', partition: 0, points: [[10_000, 5, 100], [11_000, 6, 200], [12_500, 1, 50]] },
  { topic: 'orders', partition: 1, points: [[10_000, 3, 900], [12_000, 2, null]] },
  { topic: 'clicks', partition: 0, points: [[11_000, 10, 400], [9_000, 99, 99]] },
]

describe('aggregateLag', () => {
  it('sums offset lag and takes the worst time lag per topic and bucket, on a full grid with gaps as null', () => {
    const data = aggregateLag(series, grid)
    expect(data.times).toEqual([10_000, 11_000, 12_000, 13_000, 14_000])
    const orders = data.groups.find((group) => group.label === 'orders')!
    expect(orders.offsetLag).toEqual([8, 6, 3, null, null])
    expect(orders.timeLagMs).toEqual([900, 200, 50, null, null])
    expect(data.total.offsetLag).toEqual([8, 16, 3, null, null])
    expect(data.total.timeLagMs).toEqual([900, 400, 50, null, null])
  })

  it('drops points outside the range', () => {
    const clicks = aggregateLag(series, grid).groups.find((group) => group.label === 'clicks')!
    expect(clicks.offsetLag[0]).toBeNull()
  })

  it('keeps the most lagging topics and folds the rest into one group, the total unchanged', () => {
    const many: LagSeriesInput[] = Array.from({ length: 5 }, (_, index) => ({ topic: `t${index}`, partition: 0, points: [[10_000, index * 10, null]] }))
    const data = aggregateLag(many, { ...grid, maxGroups: 3 })
    expect(data.groups.map((group) => group.label)).toEqual(['t3', 't4', OTHER_TOPICS_LABEL])
    expect(data.groups[2]!.topics).toEqual(['t2', 't1', 't0'])
    expect(data.groups[2]!.offsetLag[0]).toBe(30)
    expect(data.total.offsetLag[0]).toBe(100)
  })
})

describe('appendLagSample', () => {
  it('merges a sample into its bucket keeping the highest value', () => {
    const data = aggregateLag(series, grid)
    const next = appendLagSample(data, 12_400, new Map([['orders', { offsetLag: 40, timeLagMs: 10 }]]))
    expect(next.groups.find((group) => group.label === 'orders')!.offsetLag[2]).toBe(40)
    expect(next.total.offsetLag[2]).toBe(40)
    expect(next.total.timeLagMs[2]).toBe(50)
    expect(data.total.offsetLag[2]).toBe(3)
  })

  it('moves the grid forward and drops buckets that leave the range', () => {
    const data = aggregateLag(series, grid)
    const next = appendLagSample(data, 16_200, new Map([['clicks', { offsetLag: 2, timeLagMs: null }]]))
    expect(next.times).toEqual([12_000, 13_000, 14_000, 15_000, 16_000])
    expect(next.groups.find((group) => group.label === 'clicks')!.offsetLag).toEqual([null, null, null, null, 2])
    expect(next.total.offsetLag.length).toBe(5)
  })

  it('ignores a sample older than the grid', () => {
    const data = aggregateLag(series, grid)
    expect(appendLagSample(data, 1_000, new Map([['orders', { offsetLag: 1, timeLagMs: 1 }]]))).toBe(data)
  })
})

describe('lagTrend', () => {
  const times = Array.from({ length: 12 }, (_, index) => index * 5_000)
  it('calls a rising lag growing and a falling one shrinking', () => {
    expect(lagTrend(times, times.map((_, index) => 100 + index * 20), 60_000).direction).toBe('growing')
    expect(lagTrend(times, times.map((_, index) => 400 - index * 30), 60_000).direction).toBe('shrinking')
  })

  it('calls jitter around a level steady', () => {
    expect(lagTrend(times, times.map((_, index) => (index % 2 === 0 ? 2 : 3)), 60_000)).toMatchObject({ direction: 'steady' })
    expect(lagTrend(times, times.map((_, index) => 10_000 + (index % 3) * 50), 60_000).direction).toBe('steady')
  })

  it('looks only at the window before the newest value, skipping gaps', () => {
    const values: Array<number | null> = times.map((_, index) => (index < 6 ? 1000 - index * 150 : 100))
    values[11] = null
    expect(lagTrend(times, values, 20_000).direction).toBe('steady')
    expect(lagTrend(times, values, 60_000).direction).toBe('shrinking')
  })

  it('says steady with fewer than three points', () => {
    expect(lagTrend([0, 1000], [0, 500], 60_000)).toEqual({ direction: 'steady', perMinute: 0 })
    expect(lagTrend([], [], 60_000).direction).toBe('steady')
  })
})

describe('describeLagChart', () => {
  it('names the current and peak lag, the trend and the most lagging topics', () => {
    const data = aggregateLag(series, { ...grid, to: 12_000 })
    const text = describeLagChart(data, { direction: 'growing', perMinute: 1200 }, '5 min')
    expect(text).toContain('Total offset lag 3 records, growing by about 1.2k records a minute; peak 16')
    expect(text).toContain('Time lag 50 ms, peak 900 ms')
    expect(text).toContain('Most behind: orders 3')
  })

  it('says so when nothing was sampled', () => {
    const data = aggregateLag([], grid)
    expect(describeLagChart(data, { direction: 'steady', perMinute: 0 }, '1 h')).toContain('No lag samples in the last 1 h')
    // A failed-over mirror: its last samples are history, not "caught up".
    const stopped = describeLagChart(aggregateLag(series, { ...grid, to: 12_000 }), { direction: 'steady', perMinute: 0 }, '5 min', null, 'every partition is STOPPED')
    expect(stopped).toBe('Not mirroring: every partition is STOPPED. The chart ends where mirroring stopped; the last total offset lag it shows is 3 records.')
    expect(stopped).not.toContain('caught up')
  })

  it('a mirror with no fetch answered yet: unknown, without a bound or a trend it does not have', () => {
    const empty = aggregateLag([], { from: 0, to: 60_000, stepMs: 5_000, rangeMs: 60_000, maxGroups: 8 })
    const text = describeLagChart(empty, { direction: 'unknown', perMinute: 0 }, '5 min', lagUnknownOf('firstFetchPending'))
    expect(text).toBe('Lag unknown: no fetch answered yet. The mirror has just started; its lag is known from its first answered fetch.')
    expect(text).not.toMatch(/growing/)
  })
})
