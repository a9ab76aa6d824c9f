import { describe, expect, it } from 'vitest'
import { buildFailoverPlan, type FailoverPartitionInput } from './failover-plan'
import { partitionSnapshotFigures, type SnapshotRow } from './partition-snapshot'
import { lastFetchReading } from './at-risk'

const NOW = 1_800_000_000_000

function row(overrides: Partial<SnapshotRow> = {}): SnapshotRow {
  return {
    state: 'MIRRORING',
    sourceHighWatermark: 100,
    destinationHighWatermark: 90,
    destinationLogEndOffset: 90,
    offsetLag: 10,
    timeLagMs: 500,
    lastFetchAt: NOW - 1_000,
    lagKnown: true,
    lagAsOf: NOW - 1_000,
    timeLagFrom: null,
    lastMirrorPosition: null,
    ...overrides,
  }
}

const extent = (logEndOffset: number, highWatermark = logEndOffset) => ({ logStartOffset: 0, highWatermark, logEndOffset })

describe('partitionSnapshotFigures', () => {
  it('reads the records at risk from the logs read together, not from the last fetch', () => {
    // The engine last saw 100 on the source; the source log now ends at 145 and the destination at 104.
    const figures = partitionSnapshotFigures({ now: NOW, row: row({ state: 'PAUSED', lagKnown: false }), source: extent(145), destination: extent(104), oldestUnmirroredTimestamp: NOW - 7_000 })
    expect(figures.mirroredOffset).toBe(104)
    expect(figures.atRisk).toEqual({ records: 41, timeMs: 7_000, known: true, asOf: NOW })
    expect(figures.offsetLag).toBe(41)
    expect(figures.offsetLagKnown).toBe(true)
    expect(figures.timeLagMs).toBe(7_000)
  })

  it('gives the failover plan’s answer for the same reading', () => {
    const source = extent(145)
    const destination = extent(104)
    const snapshotRow = row({ state: 'PAUSED', lagKnown: false })
    const figures = partitionSnapshotFigures({ now: NOW, row: snapshotRow, source, destination, oldestUnmirroredTimestamp: NOW - 7_000 })
    const input: FailoverPartitionInput = {
      topic: 'orders',
      partition: 0,
      state: 'PAUSED',
      destinationLogEndOffset: destination.logEndOffset,
      lastMirrorPosition: null,
      source: { logEndOffset: source.logEndOffset, oldestUnmirroredTimestamp: NOW - 7_000 },
      lastFetch: lastFetchReading({ state: 'PAUSED', now: NOW, sourceHighWatermark: 100, destinationHighWatermark: 90, oldestUnmirroredTimestamp: null, lastFetchAt: NOW - 1_000 }),
      openTransactions: [],
      consumerGroups: [],
    }
    const plan = buildFailoverPlan({ mirror: 'dr', now: NOW, sourceReachable: true, partitions: [input] })
    expect(plan.partitions[0]?.atRisk).toEqual(figures.atRisk)
    expect(plan.partitions[0]?.mirroredOffset).toBe(figures.mirroredOffset)
  })

  it('falls back to the last fetch’s lower bounds when the source did not answer', () => {
    const figures = partitionSnapshotFigures({
      now: NOW,
      row: row({ state: 'FAILED', lagKnown: false, timeLagFrom: NOW - 30_000 }),
      source: null,
      destination: extent(90),
      oldestUnmirroredTimestamp: null,
    })
    expect(figures.atRisk).toEqual({ records: 10, timeMs: 30_000, known: false, asOf: NOW - 1_000 })
    expect(figures.offsetLag).toBe(10)
    expect(figures.offsetLagKnown).toBe(false)
    expect(figures.timeLagKnown).toBe(false)
  })

  it('has nothing at risk once failed over, and measures from the last mirror position', () => {
    const figures = partitionSnapshotFigures({
      now: NOW,
      row: row({ state: 'STOPPED', lastMirrorPosition: { epoch: 3, offset: 88 } }),
      source: extent(120),
      destination: extent(92),
      oldestUnmirroredTimestamp: null,
    })
    expect(figures.mirroredOffset).toBe(88)
    expect(figures.atRisk).toBeNull()
    expect(figures.offsetLag).toBeNull()
  })

  it('leaves the time at risk unknown when the oldest record could not be read', () => {
    const figures = partitionSnapshotFigures({ now: NOW, row: row({ lagKnown: true }), source: extent(100), destination: extent(95), oldestUnmirroredTimestamp: null })
    expect(figures.atRisk).toMatchObject({ records: 5, timeMs: null, known: true })
    // The engine's own current figure stands in for the time lag.
    expect(figures.timeLagMs).toBe(500)
  })
})
