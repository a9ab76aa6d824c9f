import { describe, expect, it } from 'vitest'
import { downsample, isFetchStale } from './lag'

// Lag edges found unpinned by mutation testing.

describe('isFetchStale', () => {
  it('a fetch exactly the threshold ago is still fresh; one millisecond more is stale', () => {
    expect(isFetchStale(11_000, 1_000, 10_000)).toBe(false)
    expect(isFetchStale(11_001, 1_000, 10_000)).toBe(true)
    expect(isFetchStale(11_000, null, 10_000)).toBe(true)
  })
})

describe('downsample', () => {
  it('answers buckets in time order whatever order the points come in, with the maximum of each', () => {
    const points = [
      [3_500, 1, 10],
      [1_200, 7, null],
      [3_100, 4, 30],
      [1_900, 2, 5],
      [2_000, 0, 0],
    ] as const
    expect(downsample(points, 1_000)).toEqual([
      [1_000, 7, 5],
      [2_000, 0, 0],
      [3_000, 4, 30],
    ])
  })
})
