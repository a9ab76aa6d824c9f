import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { crc32cJs } from './crc32c-js'
import { isStorageError } from './errors'
import {
  BATCH_HEADER_SIZE,
  decodeBatchRecords,
  encodeBatch,
  encodeControlBatch,
  endTxnMarkerValue,
  incrementSequence,
  mirrorPidResetValue,
  readBatchHeader,
  readControlInfo,
  splitBatches,
  validateBatchAt,
  viewOf,
} from './record-batch'
import type { RecordInput } from './types'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes))

describe('CRC32C', () => {
  it('has the Castagnoli check value e3069283 for "123456789"', () => {
    expect(crc32cJs(new TextEncoder().encode('123456789')).toString(16)).toBe('e3069283')
  })
})

describe('encodeBatch', () => {
  it('writes a plain one-record batch byte for byte as Kafka lays it out', () => {
    const bytes = encodeBatch({ baseOffset: 5, partitionLeaderEpoch: 3, timestamp: 1000, records: [{ key: 'k', value: 'v' }] }, crc32cJs)
    expect(hex(bytes)).toBe(
      '0000000000000005' + // baseOffset
        '0000003a' + // batchLength = 70 - 12
        '00000003' + // partitionLeaderEpoch
        '02' + // magic
        '716a6189' + // crc32c(attributes..end)
        '0000' + // attributes
        '00000000' + // lastOffsetDelta
        '00000000000003e8' + // baseTimestamp
        '00000000000003e8' + // maxTimestamp
        'ffffffffffffffff' + // producerId -1
        'ffff' + // producerEpoch -1
        'ffffffff' + // baseSequence -1
        '00000001' + // record count
        '10' + '00' + '00' + '00' + '026b' + '0276' + '00', // length 8, attrs, tsDelta, offsetDelta, key, value, headers
    )
  })

  it('decodes every header field it wrote', () => {
    const bytes = encodeBatch(
      { baseOffset: 2 ** 40, partitionLeaderEpoch: 17, producerId: 2 ** 35, producerEpoch: 9, baseSequence: 2147483646, isTransactional: true, timestamp: 1_700_000_000_000, records: [{ value: 'a', timestamp: 1_700_000_000_500 }, { value: 'b', timestamp: 1_699_999_999_000 }, { value: null }] },
      crc32cJs,
    )
    const header = validateBatchAt(bytes, viewOf(bytes), 0, crc32cJs)
    expect(header).toMatchObject({
      baseOffset: 2 ** 40,
      lastOffset: 2 ** 40 + 2,
      sizeInBytes: bytes.length,
      partitionLeaderEpoch: 17,
      magic: 2,
      compression: 'none',
      timestampType: 'CreateTime',
      isTransactional: true,
      isControl: false,
      lastOffsetDelta: 2,
      baseTimestamp: 1_700_000_000_500,
      maxTimestamp: 1_700_000_000_500,
      producerId: 2 ** 35,
      producerEpoch: 9,
      baseSequence: 2147483646,
      lastSequence: 0, // wraps past int32 max like Kafka
      recordCount: 3,
    })
    const records = decodeBatchRecords(bytes)
    expect(records.map((r) => [r.offset, r.sequence, r.timestamp, text(r.value)])).toEqual([
      [2 ** 40, 2147483646, 1_700_000_000_500, 'a'],
      [2 ** 40 + 1, 2147483647, 1_699_999_999_000, 'b'],
      [2 ** 40 + 2, 0, 1_700_000_000_000, null],
    ])
  })

  it('round-trips arbitrary records (keys, values, headers, timestamps)', () => {
    const bytesArb = fc.option(fc.uint8Array({ maxLength: 300 }), { nil: null })
    const recordArb = fc.record({
      key: bytesArb,
      value: bytesArb,
      headers: fc.array(fc.record({ key: fc.string({ maxLength: 20 }), value: bytesArb }), { maxLength: 4 }),
      timestamp: fc.integer({ min: 0, max: 2 ** 45 }),
    })
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 2 ** 50 }), (records: RecordInput[], baseOffset) => {
        const bytes = encodeBatch({ baseOffset, partitionLeaderEpoch: 1, timestamp: 0, records }, crc32cJs)
        validateBatchAt(bytes, viewOf(bytes), 0, crc32cJs)
        const decoded = decodeBatchRecords(bytes)
        expect(decoded).toHaveLength(records.length)
        decoded.forEach((r, i) => {
          const input = records[i]!
          expect(r.offset).toBe(baseOffset + i)
          expect(r.type).toBe('DATA')
          expect(r.producerId).toBeNull()
          expect(r.timestamp).toBe(input.timestamp)
          expect(r.key).toEqual(input.key)
          expect(r.value).toEqual(input.value)
          expect(r.headers).toEqual(input.headers)
        })
      }),
      { numRuns: 200 },
    )
  })

  it('refuses an empty batch', () => {
    expect(() => encodeBatch({ baseOffset: 0, partitionLeaderEpoch: 0, timestamp: 0, records: [] }, crc32cJs)).toThrow(/at least one record/)
  })
})

describe('control batches', () => {
  it('encodes COMMIT/ABORT markers as Kafka: key int16 0 + int16 type, value int16 0 + int32 coordinatorEpoch', () => {
    const bytes = encodeControlBatch(
      { baseOffset: 10, partitionLeaderEpoch: 4, producerId: 77, producerEpoch: 2, isTransactional: true, timestamp: 5, typeId: 0, value: endTxnMarkerValue(12) },
      crc32cJs,
    )
    const header = validateBatchAt(bytes, viewOf(bytes), 0, crc32cJs)
    expect(header).toMatchObject({ isControl: true, isTransactional: true, producerId: 77, producerEpoch: 2, baseSequence: -1, recordCount: 1, attributes: 0x30 })
    const [record] = decodeBatchRecords(bytes)
    expect(record).toMatchObject({ offset: 10, type: 'ABORT', controlTypeId: 0, coordinatorEpoch: 12, producerId: 77, transactional: true })
    expect(hex(record!.key!)).toBe('00000000')
    expect(hex(record!.value!)).toBe('00000000000c')
  })

  it('encodes MIRROR_PID_RESET as type 7 with an int16 version value and no producer', () => {
    const bytes = encodeControlBatch(
      { baseOffset: 3, partitionLeaderEpoch: 1, producerId: -1, producerEpoch: -1, isTransactional: false, timestamp: 5, typeId: 7, value: mirrorPidResetValue() },
      crc32cJs,
    )
    const header = readBatchHeader(viewOf(bytes))
    expect(header.attributes).toBe(0x20)
    expect(readControlInfo(bytes, header)).toEqual({ typeId: 7, type: 'MIRROR_PID_RESET' })
    const [record] = decodeBatchRecords(bytes)
    expect(record).toMatchObject({ type: 'MIRROR_PID_RESET', producerId: null, transactional: false })
    expect(hex(record!.key!)).toBe('00000007')
    expect(hex(record!.value!)).toBe('0000')
  })

  it('reports unknown control types as CONTROL', () => {
    const bytes = encodeControlBatch({ baseOffset: 0, partitionLeaderEpoch: 0, producerId: -1, producerEpoch: -1, isTransactional: false, timestamp: 0, typeId: 2, value: new Uint8Array(2) }, crc32cJs)
    expect(decodeBatchRecords(bytes)[0]).toMatchObject({ type: 'CONTROL', controlTypeId: 2 })
  })
})

describe('validation', () => {
  const batch = () => encodeBatch({ baseOffset: 0, partitionLeaderEpoch: 0, timestamp: 0, records: [{ value: 'hello' }, { value: 'world' }] }, crc32cJs)

  it('detects a flipped bit anywhere in the CRC-covered part', () => {
    const bytes = batch()
    for (const position of [21, 30, 60, bytes.length - 1]) {
      const copy = bytes.slice()
      copy[position]! ^= 0x01
      let error: unknown
      try {
        validateBatchAt(copy, viewOf(copy), 0, crc32cJs)
      } catch (e) {
        error = e
      }
      expect(isStorageError(error, 'CORRUPT_RECORD')).toBe(true)
    }
  })

  it('splits concatenated batches and refuses a truncated tail', () => {
    const a = batch()
    const b = encodeBatch({ baseOffset: 2, partitionLeaderEpoch: 0, timestamp: 0, records: [{ value: 'x' }] }, crc32cJs)
    const both = new Uint8Array(a.length + b.length)
    both.set(a)
    both.set(b, a.length)
    expect(splitBatches(both, crc32cJs).map((s) => [s.header.baseOffset, s.position])).toEqual([
      [0, 0],
      [2, a.length],
    ])
    expect(() => splitBatches(both.subarray(0, both.length - 1), crc32cJs)).toThrow(/truncated/)
    expect(() => splitBatches(both.subarray(0, a.length + 5), crc32cJs)).toThrow(/truncated/)
  })

  it('refuses magic other than 2', () => {
    const bytes = batch()
    bytes[16] = 1
    expect(() => readBatchHeader(viewOf(bytes))).toThrow(/magic 1/)
  })

  it('refuses to decode compressed records with a typed error but still reads the header', () => {
    const bytes = batch()
    viewOf(bytes).setInt16(21, 1) // gzip
    expect(readBatchHeader(viewOf(bytes)).compression).toBe('gzip')
    let error: unknown
    try {
      decodeBatchRecords(bytes)
    } catch (e) {
      error = e
    }
    expect(isStorageError(error, 'UNSUPPORTED_COMPRESSION_TYPE')).toBe(true)
  })

  it('refuses a record whose length does not match its content', () => {
    const bytes = batch()
    bytes[BATCH_HEADER_SIZE] = bytes[BATCH_HEADER_SIZE]! + 2 // first record claims one more byte
    expect(() => decodeBatchRecords(bytes)).toThrow(/length|overruns|trailing/)
  })
})

describe('incrementSequence', () => {
  it('wraps at int32 max like Kafka', () => {
    expect(incrementSequence(5, 3)).toBe(8)
    expect(incrementSequence(2147483647, 1)).toBe(0)
    expect(incrementSequence(2147483600, 100)).toBe(52)
  })
})
