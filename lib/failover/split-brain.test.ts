import { describe, expect, it } from 'vitest'
import { SplitBrain } from '../api/split-brain'
import { recordsWritten, splitBrainOf } from './split-brain'

describe('splitBrainOf', () => {
  it('counts records written to the old source since the failover, per topic, with the newest time', () => {
    const summary = SplitBrain.parse(
      splitBrainOf(
        'us-east',
        [
          { topic: 'orders', partition: 0, baselineLogEndOffset: 6, since: 1_000, logEndOffset: 9, latestWriteAt: 5_000 },
          { topic: 'orders', partition: 1, baselineLogEndOffset: 4, since: 1_000, logEndOffset: 5, latestWriteAt: 7_000 },
          { topic: 'clicks', partition: 0, baselineLogEndOffset: 10, since: 1_000, logEndOffset: 10, latestWriteAt: null },
          { topic: 'audit', partition: 0, baselineLogEndOffset: 2, since: 900, logEndOffset: 3, latestWriteAt: 4_000 },
        ],
        8_000,
        true,
      ),
    )
    expect(summary).toEqual({
      oldSourceCluster: 'us-east',
      since: 900,
      watchedPartitions: 4,
      recordsWritten: 5,
      latestWriteAt: 7_000,
      checkedAt: 8_000,
      sourceReachable: true,
      topics: [
        { topic: 'orders', recordsWritten: 4, latestWriteAt: 7_000, partitionsWritten: 2 },
        { topic: 'audit', recordsWritten: 1, latestWriteAt: 4_000, partitionsWritten: 1 },
      ],
    })
  })

  it('does not count a log that shrank as writes', () => {
    expect(recordsWritten({ baselineLogEndOffset: 6, logEndOffset: 3 })).toBe(0)
  })
})
