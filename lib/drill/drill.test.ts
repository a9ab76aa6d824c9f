import { describe, expect, it } from 'vitest'
import { drillCadence, lastDrillText, quantile } from './cadence'
import { MirrorSummary } from '../api/mirrors'
import { crc32cJs } from '../log/crc32c-js'
import { CONTROL_TYPE_IDS, encodeBatch, encodeControlBatch, endTxnMarkerValue, mirrorPidResetValue, readBatchHeader, viewOf } from '../log/record-batch'
import { committedProblem, describeMarkers, expectedCommitted, groupOffsetProblem, markerProblem, sourceBatchProblem, type CheckedRecord } from './checks'

const data = (offset: number, producerId: number | null, transactional = producerId !== null): CheckedRecord => ({ offset, type: 'DATA', producerId, transactional })
const marker = (offset: number, type: string, producerId: number | null): CheckedRecord => ({ offset, type, producerId, transactional: producerId !== null })

// The worked example's copy after its failover: 0–2 mirrored, ABORT 4001 at 3, ABORT 4002 at 4, reset at 5.
const copy = [data(0, 4001), data(1, 4001), data(2, 4002), marker(3, 'ABORT', 4001), marker(4, 'ABORT', 4002), marker(5, 'MIRROR_PID_RESET', null)]
const planned = { topic: 'orders', partition: 0, position: { epoch: 0, offset: 3 }, transactionsToAbort: [{ producerId: 4002, firstOffset: 2 }, { producerId: 4001, firstOffset: 0 }] }

describe('markers where the plan said', () => {
  it('accepts one ABORT per planned transaction by first offset, then the reset', () => {
    expect(markerProblem({ ...planned, records: copy.slice(3) })).toBeNull()
    expect(describeMarkers(copy, 3)).toBe('ABORT 4001 at 3, ABORT 4002 at 4, MIRROR_PID_RESET at 5')
  })

  it('names a marker out of order, a missing reset and a second one', () => {
    const swapped = [marker(3, 'ABORT', 4002), marker(4, 'ABORT', 4001), marker(5, 'MIRROR_PID_RESET', null)]
    expect(markerProblem({ ...planned, records: swapped })).toBe('orders-0: ABORT of producer 4002 at 3 where the plan put ABORT of producer 4001 at 3')
    expect(markerProblem({ ...planned, records: copy.slice(3, 5) })).toBe('orders-0: no MIRROR_PID_RESET where the MIRROR_PID_RESET belongs (5)')
    expect(markerProblem({ ...planned, records: [...copy.slice(3), marker(6, 'MIRROR_PID_RESET', null)] })).toBe('orders-0: a second MIRROR_PID_RESET at 6')
    // A log empty at the stop: the reset is the first record.
    expect(markerProblem({ ...planned, transactionsToAbort: [], position: null, records: [marker(0, 'MIRROR_PID_RESET', null)] })).toBeNull()
  })
})

describe('read_committed sees exactly the committed data', () => {
  it('leaves out aborted and open transactions, keeps committed and plain records', () => {
    const log = [data(0, 7), data(1, null), data(2, 8), marker(3, 'COMMIT', 7), data(4, 9), marker(5, 'ABORT', 8), data(6, 5, false)]
    expect(expectedCommitted(log)).toEqual([0, 1, 6])
    expect(expectedCommitted(copy)).toEqual([])
  })

  it('says which offsets differ', () => {
    expect(committedProblem('orders-0', [0, 1], [0, 1])).toBeNull()
    expect(committedProblem('orders-0', [0, 1], [1, 2])).toBe('orders-0: committed offsets not seen: 0; aborted or open offsets seen: 2')
  })
})

describe('group offsets', () => {
  it('needs the offset on the copy and within its log', () => {
    const base = { groupId: 'billing', topic: 'orders', partition: 0, offset: 2, logStartOffset: 0, logEndOffset: 6 }
    expect(groupOffsetProblem({ ...base, onCopy: 2 })).toBeNull()
    expect(groupOffsetProblem({ ...base, onCopy: null })).toBe('group billing on orders-0: offset 2 is not on the copy')
    expect(groupOffsetProblem({ ...base, offset: 9, onCopy: 9 })).toBe('group billing on orders-0: offset 9 is outside the log [0, 6]')
  })
})

describe('drill cadence', () => {
  const day = 24 * 60 * 60 * 1000
  it('counts days since the last success and says when the interval is breached', () => {
    expect(drillCadence({ lastSucceededAt: 0, intervalDays: 7, now: 3.5 * day })).toEqual({ lastSucceededAt: 0, daysSince: 3, intervalDays: 7, dueAt: 7 * day, overdue: false })
    expect(drillCadence({ lastSucceededAt: 0, intervalDays: 7, now: 8 * day }).overdue).toBe(true)
    expect(drillCadence({ lastSucceededAt: null, intervalDays: 7, now: 0 }).overdue).toBe(true)
    expect(drillCadence({ lastSucceededAt: null, intervalDays: null, now: 0 }).overdue).toBeNull()
    expect([0, 1, 12].map((daysSince) => lastDrillText({ daysSince }))).toEqual(['today', '1 day ago', '12 days ago'])
    expect(lastDrillText({ daysSince: null })).toBe('never')
  })

  it('gives a whole-millisecond due instant for a fractional interval, as the API schema asks (the fuzzer found a 500)', () => {
    const cadence = drillCadence({ lastSucceededAt: 1_796_551_889_786, intervalDays: 492.02887293673007, now: 1_796_551_900_000 })
    expect(Number.isInteger(cadence.dueAt)).toBe(true)
    expect(MirrorSummary.shape.drills.unwrap().safeParse({ ...cadence, running: null }).success).toBe(true)
  })

  it('takes nearest-rank quantiles', () => {
    expect(quantile([5, 1, 3, 2, 4], 0.99)).toBe(5)
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3)
    expect(quantile([], 0.5)).toBeNull()
  })
})

describe('the drill on screen', () => {
  it('shows each step done, current, stopped at or to come', async () => {
    const { drillStepStates, checksSentence } = await import('../ui/drill-view')
    expect(drillStepStates({ status: 'running', phase: 'failingOver', stoppedIn: null })).toEqual(['done', 'current', 'todo', 'todo'])
    expect(drillStepStates({ status: 'succeeded', phase: 'done', stoppedIn: null })).toEqual(['done', 'done', 'done', 'done'])
    expect(drillStepStates({ status: 'failed', phase: 'done', stoppedIn: 'failingOver' })).toEqual(['done', 'stopped', 'todo', 'done'])
    expect(checksSentence([])).toBe('no checks yet')
    expect(checksSentence([{ name: 'source-untouched', ok: true, detail: '' }, { name: 'read-committed', ok: false, detail: '' }])).toBe('1 of 2 checks failed')
  })
})

describe('nothing of the copy on the source', () => {
  const judge = (batch: Uint8Array) => sourceBatchProblem('orders-0', batch, readBatchHeader(viewOf(batch)), 'd-1a2b')
  const control = (typeId: number, value: Uint8Array) => encodeControlBatch({ baseOffset: 12, partitionLeaderEpoch: 0, producerId: 7, producerEpoch: 0, isTransactional: typeId !== CONTROL_TYPE_IDS.MIRROR_PID_RESET, timestamp: 0, typeId, value }, crc32cJs)

  it("names a MIRROR_PID_RESET and a record keyed with the drill's id, by offset", () => {
    expect(judge(control(CONTROL_TYPE_IDS.MIRROR_PID_RESET, mirrorPidResetValue()))).toBe('orders-0: a MIRROR_PID_RESET at 12, written after the copy was taken')
    const drillWrite = encodeBatch({ baseOffset: 40, partitionLeaderEpoch: 0, timestamp: 0, records: [{ key: 'k', value: 'production' }, { key: 'd-1a2b', value: 'd-1a2b idempotent write to orders-0' }] }, crc32cJs)
    expect(judge(drillWrite)).toBe("orders-0: a record keyed d-1a2b (the drill's producers' key) at 41")
  })

  it("lets the source's own records and transaction markers be", () => {
    expect(judge(control(CONTROL_TYPE_IDS.ABORT, endTxnMarkerValue(0)))).toBeNull()
    expect(judge(encodeBatch({ baseOffset: 40, partitionLeaderEpoch: 0, timestamp: 0, records: [{ key: 'd-1a2', value: 'x' }, { key: null, value: 'd-1a2b' }] }, crc32cJs))).toBeNull()
  })
})
