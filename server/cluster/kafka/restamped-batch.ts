import 'server-only'
import type { BatchHeader } from '@/lib/log/types'
import { crc32c } from '@/server/storage/crc32c'
import type { ProducerStamp } from './pipelined-producer'

/**
 * A source batch whose bytes can be written as they are, with our producer id, epoch and sequence: one record
 * per offset (the broker numbers records by their offset deltas, and the sequence counts them), timestamps
 * of the producer (CreateTime, no delete horizon of a compacted batch in place of the base timestamp). Its
 * records, headers and codec are then the source's byte for byte; any other batch is encoded again.
 */
export function keepsItsBytes(header: BatchHeader): boolean {
  return header.recordCount > 0 && header.recordCount === header.lastOffsetDelta + 1 && header.timestampType === 'CreateTime' && !header.hasDeleteHorizon
}

const ATTRIBUTES_AT = 21
const KEPT_ATTRIBUTES = 0x07 | 0x08 // the codec and the timestamp type; not transactional, control or delete horizon
/** Set only for our own transaction's batches (an atomic append, issue #40), never carried over from the source. */
const TRANSACTIONAL = 0x10

/** A copy of a source batch as our idempotent producer writes it (Kafka's v2 header layout; CRC over attributes…end). */
export function restamped(batch: Uint8Array, stamp: ProducerStamp): Uint8Array {
  const bytes = new Uint8Array(batch.byteLength)
  restampInto(batch, stamp, bytes)
  return bytes
}

/** The same, written into `target` (as long as the batch: the produce request's place for it), the source's bytes left as they are. */
export function restampInto(batch: Uint8Array, stamp: ProducerStamp, target: Uint8Array): void {
  if (target.byteLength !== batch.byteLength) throw new Error(`restampInto: ${target.byteLength} bytes of room for a batch of ${batch.byteLength}`)
  target.set(batch)
  const bytes = target
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  view.setBigInt64(0, 0n) // base offset: the broker assigns it
  view.setInt32(12, -1) // partition leader epoch: the broker's
  view.setInt16(ATTRIBUTES_AT, (view.getInt16(ATTRIBUTES_AT) & KEPT_ATTRIBUTES) | (stamp.isTransactional ? TRANSACTIONAL : 0))
  view.setBigInt64(43, BigInt(stamp.producerId))
  view.setInt16(51, stamp.producerEpoch)
  view.setInt32(53, stamp.baseSequence)
  view.setUint32(17, crc32c(bytes.subarray(ATTRIBUTES_AT)))
}
