import { describe, expect, it } from 'vitest'
import type { RecordEntry } from '../api/records'
import { joinTail, tailRead, type CoveredRead } from './record-window'

function record(offset: number, value = `v${offset}`, leaderEpoch = 0): RecordEntry {
  return { offset, type: 'DATA', producerId: 1, producerEpoch: 0, leaderEpoch, transactional: false, timestamp: 1_000 + offset, key: `k${offset}`, value, headers: [] }
}
function records(from: number, to: number, leaderEpoch = 0): RecordEntry[] {
  return Array.from({ length: to - from }, (_, index) => record(from + index, `v${from + index}`, leaderEpoch))
}
function covered(fromOffset: number, limit: number, nextOffset: number): CoveredRead {
  return { read: { fromOffset, limit }, records: records(fromOffset, nextOffset), nextOffset }
}

describe('tailRead', () => {
  it('keeps what an earlier read covered and reads on from its last record (the seam)', () => {
    const earlier = covered(100, 1000, 150)
    const tail = tailRead({ fromOffset: 110, limit: 1000 }, 160, [earlier])!
    expect(tail.earlier).toBe(earlier)
    expect(tail.kept.map((entry) => entry.offset)).toEqual(records(110, 150).map((entry) => entry.offset))
    // The kept records are the earlier read's own objects: the tape's cells showing them do not re-render.
    expect(tail.kept[0]).toBe(earlier.records[10])
    expect(tail).toMatchObject({ from: 149, limit: 961 })
  })

  it('reads nothing when the earlier read already covers the window up to the readable end', () => {
    expect(tailRead({ fromOffset: 100, limit: 50 }, 150, [covered(100, 1000, 180)])).toMatchObject({ from: null })
  })

  it('chooses the read reaching furthest, and none that starts after the window or ends before it', () => {
    const far = covered(90, 1000, 170)
    const tail = tailRead({ fromOffset: 100, limit: 1000 }, 200, [covered(100, 1000, 150), far, covered(101, 1000, 300)])!
    expect(tail.earlier).toBe(far)
    expect(tailRead({ fromOffset: 100, limit: 1000 }, 200, [covered(101, 1000, 300), covered(50, 40, 90)])).toBeNull()
  })
})

describe('joinTail', () => {
  it('joins the kept records and the tail past the seam, no more than the window holds', () => {
    const read = { fromOffset: 0, limit: 12 }
    const tail = tailRead(read, 20, [covered(0, 1000, 10)])!
    expect(joinTail(read, tail, records(9, 20))?.map((entry) => entry.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  })

  it('refuses a tail whose seam record differs: the log was cut and written again since', () => {
    const read = { fromOffset: 0, limit: 1000 }
    const tail = tailRead(read, 20, [covered(0, 1000, 10)])!
    expect(joinTail(read, tail, records(9, 20, 1))).toBeNull()
    expect(joinTail(read, tail, [])).toBeNull()
  })
})
