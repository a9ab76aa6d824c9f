import { describe, expect, it } from 'vitest'
import { isrHighWatermark, joiningReplicas, outOfSyncReplicas } from './isr'

const followers = new Map([
  [2, { logEndOffset: 10, lastCaughtUpTimeMs: 1_000 }],
  [3, { logEndOffset: 7, lastCaughtUpTimeMs: 30_000 }],
  [4, { logEndOffset: -1, lastCaughtUpTimeMs: 30_000 }],
])

describe('the in-sync replica set', () => {
  it('drops ISR followers not caught up within replica.lag.time.max.ms, and those never seen; never the leader', () => {
    expect(outOfSyncReplicas({ isr: [1, 2, 3, 5], leader: 1, followers, now: 31_000, replicaLagTimeMaxMs: 10_000 })).toEqual([2, 5])
    expect(outOfSyncReplicas({ isr: [1, 3], leader: 1, followers, now: 31_000, replicaLagTimeMaxMs: 10_000 })).toEqual([])
  })

  it('lets a follower join once at the high watermark and past the leader epoch start, not before it fetched', () => {
    const base = { replicas: [1, 2, 3, 4], isr: [1], leader: 1, followers }
    expect(joiningReplicas({ ...base, highWatermark: 8, leaderEpochStartOffset: 0 })).toEqual([2])
    expect(joiningReplicas({ ...base, highWatermark: 7, leaderEpochStartOffset: 0 })).toEqual([2, 3])
    expect(joiningReplicas({ ...base, highWatermark: 7, leaderEpochStartOffset: 9 })).toEqual([2])
    expect(joiningReplicas({ ...base, isr: [1, 2], highWatermark: 7, leaderEpochStartOffset: 0 })).toEqual([3])
  })

  it('puts the high watermark at the smallest log end of the ISR, and nowhere while a member has not fetched from this leader', () => {
    expect(isrHighWatermark({ isr: [1, 2, 3], leader: 1, leaderLogEndOffset: 12, followers })).toBe(7)
    expect(isrHighWatermark({ isr: [1], leader: 1, leaderLogEndOffset: 12, followers })).toBe(12)
    expect(isrHighWatermark({ isr: [1, 2, 4], leader: 1, leaderLogEndOffset: 12, followers })).toBeNull()
    expect(isrHighWatermark({ isr: [1, 5], leader: 1, leaderLogEndOffset: 12, followers })).toBeNull()
  })
})
