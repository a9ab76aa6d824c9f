import { describe, expect, it } from 'vitest'
import { aggregateLag, type LagSeriesInput } from '../ui/lag-series'
import { lagByTopic } from './lag-by-topic'

const STEP = 5_000
const T = 1_764_590_000_000

const perPartition: LagSeriesInput[] = [
  { topic: 'orders', partition: 0, points: [[T, 2, 40], [T + STEP, 5, 90], [T + 3 * STEP, null, null]] },
  { topic: 'orders', partition: 1, points: [[T, 3, 10], [T + 2 * STEP, 1, null], [T + 3 * STEP, 4, 70]] },
  { topic: 'payments', partition: 0, points: [[T + STEP, 7, null]] },
  { topic: 'logs', partition: 0, points: [] },
]

describe('lagByTopic', () => {
  it('sums offset lag and keeps the worst time lag per topic and bucket; null where no partition had a figure', () => {
    expect(lagByTopic(perPartition, STEP)).toEqual([
      { topic: 'orders', partitions: 2, points: [[T, 5, 40], [T + STEP, 5, 90], [T + 2 * STEP, 1, null], [T + 3 * STEP, 4, 70]] },
      { topic: 'payments', partitions: 1, points: [[T + STEP, 7, null]] },
      { topic: 'logs', partitions: 1, points: [] },
    ])
  })

  it('gives the chart the same lines as the per-partition history', () => {
    const options = { stepMs: STEP, rangeMs: 60_000, from: T - 30_000, to: T + 30_000, maxGroups: 2 }
    expect(aggregateLag(lagByTopic(perPartition, STEP), options)).toEqual(aggregateLag(perPartition, options))
  })
})
