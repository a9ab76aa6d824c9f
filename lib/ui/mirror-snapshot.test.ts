import { describe, expect, it } from 'vitest'
import type { MirrorPartition } from '../api/mirrors'
import { mirrorSnapshot } from './mirror-snapshot'

const NOW = Date.UTC(2026, 11, 6, 22, 24, 0)
const LAST_FETCH = NOW - 31_000

function row(partition: number, patch: Partial<MirrorPartition> = {}): MirrorPartition {
  return {
    topic: 'orders',
    partition,
    state: 'MIRRORING',
    stateEpoch: 1,
    stateSince: NOW - 60_000,
    previousState: 'PREPARING',
    retryAttempt: 0,
    error: null,
    sourceHighWatermark: 110,
    destinationHighWatermark: 100,
    destinationLogEndOffset: 100,
    offsetLag: 10,
    timeLagMs: 400,
    lastFetchAt: NOW - 200,
    lagKnown: true,
    lagAsOf: NOW - 200,
    destinationLeaderEpoch: 1,
    lastMirrorPosition: null,
    lastTruncation: null,
    ...patch,
  }
}

function failed(partition: number, offsetLag: number): MirrorPartition {
  return row(partition, {
    state: 'FAILED',
    previousState: 'MIRRORING',
    retryAttempt: 10,
    error: 'source unreachable: the link of us-east is cut',
    failureCode: 'SOURCE_UNREACHABLE',
    nextRetryAt: NOW + 4_000,
    sourceHighWatermark: 100 + offsetLag,
    offsetLag,
    timeLagMs: 31_000,
    lastFetchAt: LAST_FETCH,
    lagKnown: false,
    lagAsOf: LAST_FETCH,
    timeLagFrom: LAST_FETCH,
  })
}

describe('mirrorSnapshot', () => {
  it('a calm mirror: exact figures, records at risk from the same function as the failover plan', () => {
    const snapshot = mirrorSnapshot('m', [row(0), row(1, { offsetLag: 0, sourceHighWatermark: 100, timeLagMs: 0 })], NOW)
    expect(snapshot.lag).toMatchObject({ known: true, maxOffsetLag: 10, totalOffsetLag: 10, maxTimeLagMs: 400 })
    expect(snapshot.atRisk).toMatchObject({ records: 10, known: true })
    expect(snapshot.lagUnknown).toBeNull()
    expect(snapshot.incident).toBeNull()
    expect(snapshot.counts).toEqual({ MIRRORING: 2 })
  })

  it('reads the records at risk from the live offset lag, not from watermarks as of the first answer', () => {
    // A lag event moved the offset lag to 3; the row's watermarks are still the page's first read (10 behind).
    const snapshot = mirrorSnapshot('m', [row(0, { offsetLag: 3 })], NOW)
    expect(snapshot.atRisk.records).toBe(3)
    expect(snapshot.lag.totalOffsetLag).toBe(3)
  })

  it('an all-FAILED mirror with the source unreachable: lower bounds that grow, the cause, never zero', () => {
    const rows = [failed(0, 142), failed(1, 0)]
    const snapshot = mirrorSnapshot('m', rows, NOW)
    expect(snapshot.lag).toMatchObject({ known: false, totalOffsetLag: 142, maxTimeLagMs: 31_000, asOf: LAST_FETCH, lowerBounds: 2 })
    expect(snapshot.atRisk).toMatchObject({ records: 142, timeMs: 31_000, known: false, asOf: LAST_FETCH })
    expect(snapshot.lagUnknown).toEqual({ cause: 'sourceUnreachable', because: 'source unreachable' })
    expect(snapshot.incident).toMatchObject({ failed: 2, since: LAST_FETCH, nextRetryAt: NOW + 4_000 })
    // Ten seconds later, from the same rows: the time lag and the time at risk have grown with the clock.
    const later = mirrorSnapshot('m', rows, NOW + 10_000)
    expect(later.lag.maxTimeLagMs).toBe(41_000)
    expect(later.atRisk.timeMs).toBe(41_000)
  })

  it('STOPPED partitions have no lag and put nothing at risk; a paused mirror says why its lag is not current', () => {
    const stopped = mirrorSnapshot('m', [row(0, { state: 'STOPPED', offsetLag: null, timeLagMs: null, lagKnown: false })], NOW)
    expect(stopped.lag).toMatchObject({ counted: 0, totalOffsetLag: null })
    expect(stopped.lagUnknown).toBeNull()
    expect(stopped.notMirroringBecause).toBe('every partition is STOPPED')
    expect(stopped.atRisk.records).toBe(0)
    const paused = mirrorSnapshot('m', [row(0, { state: 'PAUSED', lagKnown: false, lastFetchAt: LAST_FETCH, lagAsOf: LAST_FETCH, timeLagFrom: LAST_FETCH })], NOW)
    expect(paused.lagUnknown).toEqual({ cause: 'paused', because: 'partitions paused' })
    expect(paused.notMirroringBecause).toBeNull()
    const halfway = mirrorSnapshot('m', [row(0, { state: 'STOPPED', offsetLag: null, timeLagMs: null, lagKnown: false }), row(1, { state: 'STOPPING', offsetLag: null, timeLagMs: null, lagKnown: false })], NOW)
    expect(halfway.notMirroringBecause).toBe('stopping (1 of 2 partitions STOPPING)')
  })
  it('a mirror none of whose partitions has had a fetch answered is pending, not an incident', () => {
    const young = mirrorSnapshot('m', [row(0, { offsetLag: null, timeLagMs: null, lastFetchAt: null, lagKnown: false, lagAsOf: null })], NOW)
    expect(young.lagUnknown).toEqual({ cause: 'firstFetchPending', because: 'no fetch answered yet' })
    expect(young.incident).toBeNull()
  })
})
