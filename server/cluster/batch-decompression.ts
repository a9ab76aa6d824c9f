import 'server-only'
import { decompress as zstdDecompress } from 'fzstd'
import { decompress as lz4Decompress, decompressBound as lz4DecompressBound } from 'lz4js'
import { uncompress as snappyUncompress } from 'snappyjs'
import { gunzipSync } from 'node:zlib'
import { readBatchHeader, viewOf } from '@/lib/log/record-batch'
import type { BatchWithBytes } from '@/lib/log/records-view'
import { ClusterError } from './errors'

/**
 * Opens compressed record batches where their records must be read: the records views, the `__mirror_state`
 * topic of a Kafka destination, and the destination emulation (which produces each source batch's records
 * again). Mirroring itself never opens a batch: batches are stored exactly as they came. lib/log decodes
 * uncompressed batches only and has no codecs; these are Kafka's four: gzip (node:zlib), snappy in the
 * framing Kafka's Java client writes (snappy-java's stream: a magic header, then length-prefixed blocks) or raw,
 * lz4 frames (KafkaLZ4BlockOutputStream) and zstd frames (Node 20's zlib has no zstd: fzstd, lz4js and
 * snappyjs are plain JavaScript, so no native build).
 */

const ATTRIBUTES_AT = 21
const BATCH_LENGTH_AT = 8
const HEADER_SIZE = 61
const COMPRESSION_MASK = 0x07
/**
 * Larger than any batch a broker accepts by default (message.max.bytes is 1 MiB compressed): a batch that
 * claims more is refused rather than allocated.
 */
export const MAX_UNCOMPRESSED_BYTES = 64 * 1024 * 1024

/** The batch with its records section decompressed and the codec bits cleared (CRC left stale: only decoded). */
export function uncompressed(batch: BatchWithBytes): BatchWithBytes {
  if (batch.compression === 'none') return batch
  const compressed = batch.raw.subarray(HEADER_SIZE, batch.sizeInBytes)
  let records: Uint8Array
  try {
    records = decompress(batch.compression, compressed)
  } catch (error) {
    if (error instanceof ClusterError) throw error
    throw new ClusterError('CORRUPT_RECORD', `batch at offset ${batch.baseOffset}: its ${batch.compression} records do not decompress (${error instanceof Error ? error.message : String(error)})`)
  }
  const raw = new Uint8Array(HEADER_SIZE + records.length)
  raw.set(batch.raw.subarray(0, HEADER_SIZE))
  raw.set(records, HEADER_SIZE)
  const view = viewOf(raw)
  view.setInt32(BATCH_LENGTH_AT, raw.length - 12)
  view.setInt16(ATTRIBUTES_AT, view.getInt16(ATTRIBUTES_AT) & ~COMPRESSION_MASK)
  return { ...readBatchHeader(view), raw }
}

function decompress(codec: BatchWithBytes['compression'], data: Uint8Array): Uint8Array {
  switch (codec) {
    case 'gzip':
      return gunzipSync(data, { maxOutputLength: MAX_UNCOMPRESSED_BYTES })
    case 'snappy':
      return snappy(data)
    case 'lz4':
      return lz4Decompress(data, checkedBound(lz4DecompressBound(data)))
    case 'zstd':
      return checkedSize(zstdDecompress(data))
    default:
      throw new ClusterError('UNSUPPORTED_COMPRESSION_TYPE', `compression ${String(codec)} is not one of Kafka's codecs`)
  }
}

function checkedSize(records: Uint8Array): Uint8Array {
  if (records.length > MAX_UNCOMPRESSED_BYTES) throw new ClusterError('CORRUPT_RECORD', `a batch's records decompress to ${records.length} bytes, over ${MAX_UNCOMPRESSED_BYTES}`)
  return records
}

/** What an lz4 frame says it holds at most (its content size, or its blocks × the block size), before allocating it. */
function checkedBound(bound: number): number {
  if (bound > MAX_UNCOMPRESSED_BYTES) throw new ClusterError('CORRUPT_RECORD', `an lz4 frame claims up to ${bound} bytes, over ${MAX_UNCOMPRESSED_BYTES}`)
  return bound
}

/** snappy-java's SnappyOutputStream header: "\x82SNAPPY\0", then version and compatible version (int32 each). */
const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]
const XERIAL_HEADER_SIZE = 16

function snappy(data: Uint8Array): Uint8Array {
  const framed = data.length >= XERIAL_HEADER_SIZE && XERIAL_MAGIC.every((byte, index) => data[index] === byte)
  if (!framed) return snappyUncompress(data, MAX_UNCOMPRESSED_BYTES)
  const view = viewOf(data)
  const blocks: Uint8Array[] = []
  let total = 0
  for (let at = XERIAL_HEADER_SIZE; at < data.length; ) {
    if (at + 4 > data.length) throw new ClusterError('CORRUPT_RECORD', 'a snappy block length is cut off')
    const length = view.getInt32(at)
    at += 4
    if (length < 0 || at + length > data.length) throw new ClusterError('CORRUPT_RECORD', `a snappy block of ${length} bytes runs past the batch`)
    const block = snappyUncompress(data.subarray(at, at + length), MAX_UNCOMPRESSED_BYTES - total)
    blocks.push(block)
    total += block.length
    at += length
  }
  return Buffer.concat(blocks, total)
}
