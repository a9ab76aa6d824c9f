import { describe, expect, it } from 'vitest'
import { decodeBatchRecords, encodeBatch, splitBatches, validateBatchAt, viewOf } from '@/lib/log/record-batch'
import type { LogRecord } from '@/lib/log/types'
import { crc32c } from '@/server/storage/crc32c'
import { keepsItsBytes, restamped } from './restamped-batch'

/** A source producer's batch as a fetch hands it over: its offsets, epoch and producer, not ours. */
function sourceBatch(isTransactional = false): Uint8Array {
  return encodeBatch(
    {
      baseOffset: 4200,
      partitionLeaderEpoch: 7,
      producerId: 4001,
      producerEpoch: 3,
      baseSequence: 90,
      isTransactional,
      timestamp: 1_700_000_000_000,
      records: [
        { key: 'k1', value: 'one', timestamp: 1_700_000_000_001, headers: [{ key: 'h', value: new Uint8Array([1, 2]) }] },
        { key: null, value: 'two', timestamp: 1_700_000_000_005 },
      ],
    },
    crc32c,
  )
}

const hex = (bytes: Uint8Array | null): string | null => (bytes === null ? null : Buffer.from(bytes).toString('hex'))
const plain = (r: LogRecord) => ({ key: hex(r.key), value: hex(r.value), timestamp: r.timestamp, headers: r.headers.map((h) => [h.key, hex(h.value)]) })

describe('restamped', () => {
  it('keeps the records byte for byte under our producer id, epoch and sequence, with a valid CRC', () => {
    const source = sourceBatch()
    const ours = restamped(source, { producerId: 12, producerEpoch: 0, baseSequence: 500 })
    const header = validateBatchAt(ours, viewOf(ours), 0, crc32c)
    expect(header).toMatchObject({ baseOffset: 0, partitionLeaderEpoch: -1, producerId: 12, producerEpoch: 0, baseSequence: 500, recordCount: 2, isTransactional: false, compression: 'none' })
    const [sourceHeader] = splitBatches(source)
    expect(Buffer.from(ours.subarray(61)).equals(Buffer.from(source.subarray(61)))).toBe(true)
    expect(decodeBatchRecords(ours, header).map(plain)).toEqual(decodeBatchRecords(source, sourceHeader!.header).map(plain))
    // The source's bytes are left as they were (they are the engine's fetch answer).
    expect(splitBatches(source)[0]!.header).toMatchObject({ baseOffset: 4200, producerId: 4001 })
  })

  it('clears the transactional bit', () => {
    const ours = restamped(sourceBatch(true), { producerId: 12, producerEpoch: 0, baseSequence: 0 })
    expect(validateBatchAt(ours, viewOf(ours), 0, crc32c).isTransactional).toBe(false)
  })
})

describe('keepsItsBytes', () => {
  const { header } = splitBatches(sourceBatch())[0]!
  it('takes a batch of one record per offset with producer timestamps', () => {
    expect(keepsItsBytes(header)).toBe(true)
  })
  it('encodes again a compacted batch, a LogAppendTime batch and one whose base timestamp is a delete horizon', () => {
    expect(keepsItsBytes({ ...header, lastOffsetDelta: 2, lastOffset: header.baseOffset + 2 })).toBe(false)
    expect(keepsItsBytes({ ...header, timestampType: 'LogAppendTime' })).toBe(false)
    expect(keepsItsBytes({ ...header, hasDeleteHorizon: true })).toBe(false)
  })
})
