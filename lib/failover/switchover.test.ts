import { describe, expect, it } from 'vitest'
import { drainReading, drainTimeoutReason, measureRecordsLost, sameLogEnds } from './switchover'

const source = (partition: number, logEndOffset: number, lastStableOffset = logEndOffset) => ({ topic: 't', partition, logEndOffset, highWatermark: logEndOffset, lastStableOffset })
const destination = (partition: number, logEndOffset: number) => ({ topic: 't', partition, logEndOffset })
const selection = [
  { topic: 't', partition: 0 },
  { topic: 't', partition: 1 },
]

describe('the drain', () => {
  it('is drained only when every destination log end equals the source and no transaction is open there', () => {
    expect(drainReading(selection, [source(0, 5), source(1, 3)], [destination(0, 5), destination(1, 3)])).toMatchObject({ drained: true, partitionsBehind: 0, recordsBehind: 0 })
    expect(drainReading(selection, [source(0, 5), source(1, 3)], [destination(0, 5), destination(1, 1)])).toMatchObject({ drained: false, partitionsBehind: 1, recordsBehind: 2 })
    expect(drainReading(selection, [source(0, 5, 4), source(1, 3)], [destination(0, 5), destination(1, 3)])).toMatchObject({ drained: false, openTransactions: 1 })
    expect(drainReading(selection, [source(0, 5)], [destination(0, 5), destination(1, 3)])).toMatchObject({ drained: false, missing: 1 })
    expect(drainReading([], [], []).drained).toBe(false)
  })

  it('says why it ran out of time', () => {
    const reading = drainReading(selection, [source(0, 5), source(1, 3)], [destination(0, 5), destination(1, 1)])
    expect(drainTimeoutReason(120_000, reading)).toBe('the drain did not finish within 120 s: 1 of 2 partitions still 2 records behind')
    expect(drainTimeoutReason(1_500, null)).toBe('the drain did not finish within 1.5 s (the clusters could not be read)')
  })

  it('tells log ends that stood still from log ends that moved', () => {
    expect(sameLogEnds([source(0, 5)], [source(0, 5)])).toBe(true)
    expect(sameLogEnds([source(0, 5)], [source(0, 6)])).toBe(false)
  })
})

describe('records lost', () => {
  it('are the source log end minus the mirrored offset, unknown (never 0) where either is unknown', () => {
    expect(measureRecordsLost([{ topic: 't', partition: 0, mirroredOffset: 5 }, { topic: 't', partition: 1, mirroredOffset: 2 }], [source(0, 5), source(1, 3)])).toEqual({
      total: 1,
      partitions: [
        { topic: 't', partition: 0, recordsLost: 0 },
        { topic: 't', partition: 1, recordsLost: 1 },
      ],
    })
    expect(measureRecordsLost([{ topic: 't', partition: 0, mirroredOffset: null }], [source(0, 5)]).total).toBeNull()
    // A destination found empty at STOPPING lost what the source holds from its log start: nothing when it is empty too.
    expect(measureRecordsLost([{ topic: 't', partition: 0, mirroredOffset: 'empty' }], [{ ...source(0, 7), logStartOffset: 7 }]).total).toBe(0)
    expect(measureRecordsLost([{ topic: 't', partition: 0, mirroredOffset: 'empty' }], [{ ...source(0, 7), logStartOffset: 4 }]).total).toBe(3)
    expect(measureRecordsLost([{ topic: 't', partition: 0, mirroredOffset: 5 }], []).total).toBeNull()
  })

  it('count the records below the mirrored offset the destination lost meanwhile (an orphaned transaction retention took before its carry)', () => {
    expect(measureRecordsLost([{ topic: 't', partition: 0, mirroredOffset: 5, lostBelow: 2 }, { topic: 't', partition: 1, mirroredOffset: 2, lostBelow: 0 }], [source(0, 5), source(1, 3)])).toEqual({
      total: 3,
      partitions: [
        { topic: 't', partition: 0, recordsLost: 2 },
        { topic: 't', partition: 1, recordsLost: 1 },
      ],
    })
    expect(measureRecordsLost([{ topic: 't', partition: 0, mirroredOffset: 5, lostBelow: null }], [source(0, 5)]).total).toBeNull()
  })
})
