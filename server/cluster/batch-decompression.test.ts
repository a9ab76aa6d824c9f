import { compress as lz4Compress } from 'lz4js'
import { compress as snappyCompress } from 'snappyjs'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { decodeBatchRecords, encodeBatch, readBatchHeader, viewOf } from '@/lib/log/record-batch'
import { crc32c } from '@/server/storage/crc32c'
import { isClusterError } from './errors'
import { uncompressed } from './batch-decompression'

/** A plain batch of five records; the zstd fixture below is its records section, compressed by the zstd CLI. */
const plain = encodeBatch(
  {
    baseOffset: 0,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    isTransactional: false,
    partitionLeaderEpoch: 0,
    timestamp: 1_000,
    records: Array.from({ length: 5 }, (_, index) => ({ key: `k${index}`, value: `value ${index} `.repeat(8) })),
  },
  crc32c,
)
const HEADER_SIZE = 61
const recordsSection = plain.subarray(HEADER_SIZE)
/** `zstd -19` of `recordsSection` (fzstd decompresses only, and Node 20's zlib has no zstd). */
const ZSTD_FIXTURE = 'KLUv/WR3AE0CAALDChHQHQOsif9WA+oVDqQuCW2SAjRC7/A5r7Axb13KG0jwaGLFVmrAkZckeAEMIDC5OXXwR2CAHPwIDNCDPYoBioOd79GnDwN9NaEk'
const CODEC_ID = { gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const

/** `plain` with its records section replaced by `compressed` and the codec bits of attributes set. */
function compressedBatch(codec: keyof typeof CODEC_ID, compressed: Uint8Array) {
  const raw = new Uint8Array(HEADER_SIZE + compressed.length)
  raw.set(plain.subarray(0, HEADER_SIZE))
  raw.set(compressed, HEADER_SIZE)
  const view = viewOf(raw)
  view.setInt32(8, raw.length - 12)
  view.setInt16(21, (view.getInt16(21) & ~0x07) | CODEC_ID[codec])
  return { ...readBatchHeader(view), raw }
}

/** snappy-java's stream framing, as Kafka's Java producer writes snappy batches: header, then length-prefixed blocks. */
function xerialFramed(data: Uint8Array, blockSize: number): Uint8Array {
  const blocks: Uint8Array[] = []
  for (let at = 0; at < data.length; at += blockSize) blocks.push(snappyCompress(data.subarray(at, at + blockSize)))
  const out = new Uint8Array(16 + blocks.reduce((total, block) => total + 4 + block.length, 0))
  out.set([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1])
  const view = viewOf(out)
  let at = 16
  for (const block of blocks) {
    view.setInt32(at, block.length)
    out.set(block, at + 4)
    at += 4 + block.length
  }
  return out
}

const expected = decodeBatchRecords(plain).map(({ key, value }) => [key, value])
const decoded = (batch: ReturnType<typeof compressedBatch>) =>
  decodeBatchRecords(uncompressed(batch).raw).map(({ key, value }) => [key, value])

describe("uncompressed: Kafka's four codecs", () => {
  it('opens gzip, snappy (snappy-java framing and raw), lz4 frames and zstd frames to the same records', () => {
    expect(decoded(compressedBatch('gzip', gzipSync(recordsSection)))).toEqual(expected)
    expect(decoded(compressedBatch('snappy', xerialFramed(recordsSection, 100)))).toEqual(expected)
    expect(decoded(compressedBatch('snappy', snappyCompress(recordsSection)))).toEqual(expected)
    expect(decoded(compressedBatch('lz4', lz4Compress(recordsSection)))).toEqual(expected)
    expect(decoded(compressedBatch('zstd', Buffer.from(ZSTD_FIXTURE, 'base64')))).toEqual(expected)
    const opened = uncompressed(compressedBatch('zstd', Buffer.from(ZSTD_FIXTURE, 'base64')))
    expect(opened.compression).toBe('none')
    expect(opened.raw).toHaveLength(plain.length)
  })

  it('refuses records that do not decompress, and a snappy block running past the batch, as CORRUPT_RECORD', () => {
    const garbage = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17])
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
      expect(() => uncompressed(compressedBatch(codec, garbage)), codec).toThrow(expect.objectContaining({ code: 'CORRUPT_RECORD' }))
    }
    const framed = xerialFramed(recordsSection, 100)
    const cut = framed.subarray(0, framed.length - 3)
    let caught: unknown
    try {
      uncompressed(compressedBatch('snappy', cut))
    } catch (error) {
      caught = error
    }
    expect(isClusterError(caught, 'CORRUPT_RECORD')).toBe(true)
  })

  it('leaves an uncompressed batch as it is', () => {
    const batch = { ...readBatchHeader(viewOf(plain)), raw: plain }
    expect(uncompressed(batch)).toBe(batch)
  })
})
