import { crc32c } from '@node-rs/crc32'
import { describe, expect, it } from 'vitest'
import { encodeBatch } from '@/lib/log/record-batch'
import { wholeBatches } from './fetched-batches'

function batch(baseOffset: number, values: string[], baseTimestamp: number): Buffer {
  const encoded = encodeBatch(
    { baseOffset, partitionLeaderEpoch: 0, timestamp: baseTimestamp, records: values.map((value) => ({ key: null, value: Buffer.from(value) })) },
    crc32c,
  )
  return Buffer.from(encoded)
}

describe('the whole batches of a fetched record set', () => {
  it('keeps whole batches, drops a partial last one and reads its base timestamp when enough of it came', () => {
    const first = batch(0, ['a', 'b'], 1000)
    const second = batch(2, ['c'], 2000)
    const whole = wholeBatches(Buffer.concat([first, second.subarray(0, 40)]))
    expect(Buffer.from(whole.records).equals(first)).toBe(true)
    expect(whole).toMatchObject({ nextOffset: 2, firstBaseTimestamp: 1000, partialBaseTimestamp: 2000 })
    expect(wholeBatches(Buffer.concat([first, second.subarray(0, 20)]))).toMatchObject({ nextOffset: 2, partialBaseTimestamp: null })
    expect(wholeBatches(Buffer.concat([first, second]))).toMatchObject({ nextOffset: 3, partialBaseTimestamp: null })
  })

  it('answers an empty set with nothing', () => {
    expect(wholeBatches(Buffer.alloc(0))).toEqual({ records: new Uint8Array(0), nextOffset: null, firstBaseTimestamp: null, partialBaseTimestamp: null })
  })
})
