import { describe, expect, it } from 'vitest'
import { SplitBrain } from '../api/split-brain'
import { addBatches, afterLogEnd, guardVerdict, splitBrainOf, startWrites, type BatchSummary, type WatchedPartition } from './split-brain'

const data = (baseOffset: number, count: number, producerId: number, at: number, producerEpoch = 0): BatchSummary => ({
  baseOffset,
  lastOffset: baseOffset + count - 1,
  recordCount: count,
  isControl: false,
  producerId,
  producerEpoch,
  maxTimestamp: at,
})
const marker = (offset: number, producerId: number): BatchSummary => ({ ...data(offset, 1, producerId, 0), isControl: true })

function watched(topic: string, partition: number, baseline: number, batches: BatchSummary[], since = 1_000): WatchedPartition {
  const writes = addBatches(startWrites(baseline), batches)
  return { topic, partition, baselineLogEndOffset: baseline, since, logEndOffset: writes.scannedTo, writes }
}

describe('splitBrainOf', () => {
  it('counts records written to the old source since the failover, per topic, with the newest time and the producers', () => {
    const summary = SplitBrain.parse(
      splitBrainOf(
        'us-east',
        [
          watched('orders', 0, 6, [data(6, 3, 4001, 5_000)]),
          watched('orders', 1, 4, [data(4, 1, 4001, 7_000, 2)]),
          watched('clicks', 0, 10, []),
          watched('audit', 0, 2, [data(2, 1, -1, 4_000)], 900),
        ],
        8_000,
        true,
        new Map([[4001, 'billing-writer']]),
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
      producers: [
        { producerId: 4001, producerEpoch: 2, transactionalId: 'billing-writer', records: 4, latestWriteAt: 7_000, topics: ['orders'] },
        { producerId: null, producerEpoch: null, transactionalId: null, records: 1, latestWriteAt: 4_000, topics: ['audit'] },
      ],
      ownRecordsIgnored: 0,
      unscannedOffsets: 0,
    })
  })

  it('never counts what Mirrorboard wrote itself: markers, PID resets, and its own producer ids', () => {
    // A failback mirrored the new source's ABORT markers and MIRROR_PID_RESET into the old source; a drill wrote with producer 9000.
    const writes = addBatches(startWrites(3), [marker(3, 4001), marker(4, 4002), marker(5, -1), data(6, 2, 9000, 5_000)], new Set([9000]))
    expect(writes).toMatchObject({ scannedTo: 8, records: 0, ownRecords: 5, latestWriteAt: null })
    const summary = splitBrainOf('us-east', [{ topic: 't', partition: 0, baselineLogEndOffset: 3, since: 1, logEndOffset: 8, writes }], 10, true)
    expect(summary).toMatchObject({ recordsWritten: 0, topics: [], producers: [], ownRecordsIgnored: 5 })
  })

  it('counts only the records of a batch from where the scan stood, and says what it has not read yet', () => {
    const writes = addBatches(startWrites(5), [data(3, 4, 7, 100), data(7, 2, 7, 200)])
    expect(writes).toMatchObject({ scannedTo: 9, records: 4 })
    const summary = splitBrainOf('a', [{ topic: 't', partition: 0, baselineLogEndOffset: 5, since: 1, logEndOffset: 20, writes }], 10, true)
    expect(summary.unscannedOffsets).toBe(11)
  })

  it('starts counting again from the new end when the log was cut below what was scanned', () => {
    const writes = addBatches(startWrites(6), [data(6, 3, 1, 10)])
    expect(afterLogEnd(writes, 9)).toBe(writes)
    expect(afterLogEnd(writes, 3)).toMatchObject({ scannedTo: 3, records: 0 })
  })
})

describe('guardVerdict', () => {
  const stopped = { state: 'STOPPED' as const, stateSince: 1_000 }

  it('watches a STOPPED partition with nothing the other way', () => {
    expect(guardVerdict(stopped, undefined)).toBe('watch')
    expect(guardVerdict({ state: 'MIRRORING', stateSince: 1 }, undefined)).toBe('notStopped')
  })

  it('leaves the old source to a failback that rewrites it', () => {
    expect(guardVerdict(stopped, { state: 'PREPARING', stateSince: 2_000 })).toBe('rewriting')
    expect(guardVerdict(stopped, { state: 'MIRRORING', stateSince: 2_000 })).toBe('rewriting')
    expect(guardVerdict(stopped, { state: 'STOPPING', stateSince: 2_000 })).toBe('rewriting')
  })

  it('retires once the failback itself failed over: the old source is the active cluster again', () => {
    expect(guardVerdict(stopped, { state: 'STOPPED', stateSince: 2_000 })).toBe('retired')
    // This mirror failed over after its reverse (a second round trip): it is the one to guard.
    expect(guardVerdict({ state: 'STOPPED', stateSince: 3_000 }, { state: 'STOPPED', stateSince: 2_000 })).toBe('watch')
  })
})
