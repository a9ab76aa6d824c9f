import 'server-only'
import { gunzipSync } from 'node:zlib'
import { readBatchHeader, viewOf } from '@/lib/log/record-batch'
import type { BatchWithBytes } from '@/lib/log/records-view'
import { ClusterError } from './errors'

/**
 * Opens compressed record batches for the records views (lib/log decodes uncompressed batches only, and has
 * no I/O or codecs). Batches from a real Kafka cluster are mirrored and stored exactly as they came, so a view
 * of either kind of cluster may meet them. gzip is opened with node:zlib; snappy, lz4 and zstd are refused with
 * UNSUPPORTED_COMPRESSION_TYPE: no codec package is in the dependencies, and Node 20's zlib has no zstd.
 */

const ATTRIBUTES_AT = 21
const BATCH_LENGTH_AT = 8
const HEADER_SIZE = 61
const COMPRESSION_MASK = 0x07

/** The batch with its records section decompressed and the codec bits cleared (CRC left stale: only decoded). */
export function uncompressed(batch: BatchWithBytes): BatchWithBytes {
  if (batch.compression === 'none') return batch
  if (batch.compression !== 'gzip') {
    throw new ClusterError('UNSUPPORTED_COMPRESSION_TYPE', `batch at offset ${batch.baseOffset} uses ${batch.compression}: the records view decodes gzip only (the batch is mirrored as it is)`)
  }
  const records = gunzipSync(batch.raw.subarray(HEADER_SIZE, batch.sizeInBytes))
  const raw = new Uint8Array(HEADER_SIZE + records.length)
  raw.set(batch.raw.subarray(0, HEADER_SIZE))
  raw.set(records, HEADER_SIZE)
  const view = viewOf(raw)
  view.setInt32(BATCH_LENGTH_AT, raw.length - 12)
  view.setInt16(ATTRIBUTES_AT, view.getInt16(ATTRIBUTES_AT) & ~COMPRESSION_MASK)
  return { ...readBatchHeader(view), raw }
}
