import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { decodeBatchRecords, encodeBatch, readBatchHeader, viewOf } from '@/lib/log/record-batch'
import { crc32c } from './crc32c'

/*
 * Cross-check with an independent implementation of the v2 format: kafkajs's record batch encoder (the
 * producer side of a real client). Same inputs must give the same bytes, and we must decode its output.
 */
const require = createRequire(import.meta.url)
type KafkajsLong = { fromValue(v: number): unknown }
const Long = require('kafkajs/src/utils/long') as KafkajsLong
const { RecordBatch: encodeKafkajsBatch } = require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (spec: Record<string, unknown>) => Promise<{ buffer: Buffer }> }
const encodeKafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (spec: Record<string, unknown>) => unknown

describe('byte compatibility with kafkajs', () => {
  it('encodes exactly the bytes kafkajs encodes for the same idempotent batch', async () => {
    const records = [
      { key: Buffer.from('key-1'), value: Buffer.from('value-1'), headers: { trace: Buffer.from('abc') }, timestamp: 1_700_000_000_000 },
      { key: null, value: Buffer.from('value-2'), headers: {}, timestamp: 1_700_000_000_250 },
    ]
    const theirs = await encodeKafkajsBatch({
      firstOffset: Long.fromValue(42),
      firstTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_250,
      partitionLeaderEpoch: 7,
      lastOffsetDelta: 1,
      transactional: true,
      producerId: Long.fromValue(4001),
      producerEpoch: 3,
      firstSequence: 10,
      records: records.map((r, i) =>
        encodeKafkajsRecord({ offsetDelta: i, timestampDelta: Long.fromValue(r.timestamp - 1_700_000_000_000), key: r.key, value: r.value, headers: r.headers }),
      ),
    })
    const ours = encodeBatch(
      {
        baseOffset: 42,
        partitionLeaderEpoch: 7,
        producerId: 4001,
        producerEpoch: 3,
        baseSequence: 10,
        isTransactional: true,
        timestamp: 0,
        records: records.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp, headers: Object.entries(r.headers).map(([key, value]) => ({ key, value })) })),
      },
      crc32c,
    )
    expect(Buffer.from(ours).toString('hex')).toBe(theirs.buffer.toString('hex'))

    const header = readBatchHeader(viewOf(ours))
    expect(header).toMatchObject({ baseOffset: 42, lastOffset: 43, producerId: 4001, producerEpoch: 3, baseSequence: 10, isTransactional: true })
    const decoded = decodeBatchRecords(ours)
    expect(decoded.map((r) => [r.offset, r.key && Buffer.from(r.key).toString(), Buffer.from(r.value!).toString(), r.headers.map((h) => h.key)])).toEqual([
      [42, 'key-1', 'value-1', ['trace']],
      [43, null, 'value-2', []],
    ])
  })
})
