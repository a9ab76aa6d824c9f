import { describe, expect, it } from 'vitest'
import { collectAbortedTransactions, decodeTxnIndex, encodeTxnIndex, OffsetIndex, TimeIndex } from './segment-index'

describe('OffsetIndex', () => {
  it("encodes Kafka's 8-byte entries relative to the base offset and finds the floor entry", () => {
    const index = new OffsetIndex(1000)
    index.append(1009, 4200)
    index.append(1030, 9000)
    expect(Buffer.from(index.encode()).toString('hex')).toBe('00000009' + '00001068' + '0000001e' + '00002328')
    expect([999, 1008, 1009, 1029, 1030, 5000].map((o) => index.lookup(o))).toEqual([0, 0, 4200, 4200, 9000, 9000])
    const decoded = OffsetIndex.decode(1000, index.encode(), 10_000)
    expect(decoded.lookup(1030)).toBe(9000)
  })

  it('ignores the zero padding of a preallocated Kafka index and refuses entries outside the segment', () => {
    const bytes = new Uint8Array(32)
    new DataView(bytes.buffer).setInt32(0, 3)
    new DataView(bytes.buffer).setInt32(4, 100)
    expect(OffsetIndex.decode(0, bytes, 200).entryCount).toBe(1)
    expect(() => OffsetIndex.decode(0, bytes, 50)).toThrow(/outside/)
    expect(() => OffsetIndex.decode(0, new Uint8Array(7), 50)).toThrow(/multiple of 8/)
  })

  it('drops entries at or after a cut position', () => {
    const index = new OffsetIndex(0)
    index.append(5, 100)
    index.append(9, 200)
    index.truncateToPosition(200)
    expect(index.entryCount).toBe(1)
  })
})

describe('TimeIndex', () => {
  it('only grows, and lookups start after every record known to be older', () => {
    const index = new TimeIndex(100)
    index.maybeAppend(50, 104)
    index.maybeAppend(40, 108) // not larger: skipped
    index.maybeAppend(70, 110)
    expect(index.entryCount).toBe(2)
    expect([10, 50, 51, 70, 71].map((t) => index.lookup(t))).toEqual([100, 100, 104, 104, 110])
    const decoded = TimeIndex.decode(100, index.encode())
    expect(decoded.lastTimestamp).toBe(70)
    expect(decoded.lastEntryOffset).toBe(110)
  })
})

describe('transaction index', () => {
  const entries = [
    { producerId: 1, firstOffset: 0, lastOffset: 5, lastStableOffset: 6 },
    { producerId: 2, firstOffset: 3, lastOffset: 9, lastStableOffset: 10 },
    { producerId: 3, firstOffset: 12, lastOffset: 20, lastStableOffset: 21 },
  ]

  it("round-trips Kafka's 34-byte entries", () => {
    const bytes = encodeTxnIndex(entries)
    expect(bytes.length).toBe(3 * 34)
    expect(Buffer.from(bytes.subarray(0, 34)).toString('hex')).toBe('0000' + '0000000000000001' + '0000000000000000' + '0000000000000005' + '0000000000000006')
    expect(decodeTxnIndex(bytes)).toEqual(entries)
  })

  it('collects the aborted transactions overlapping a fetched range', () => {
    expect(collectAbortedTransactions(entries, 6, 12).map((e) => e.producerId)).toEqual([2])
    expect(collectAbortedTransactions(entries, 0, 100).map((e) => e.producerId)).toEqual([1, 2, 3])
    expect(collectAbortedTransactions(entries, 10, 12)).toEqual([])
  })
})
