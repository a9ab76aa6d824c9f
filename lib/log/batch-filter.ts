import { StorageError } from './errors'
import type { Crc32c } from './record-batch'
import { BATCH_HEADER_SIZE, rewriteBatchHeader } from './record-batch'
import type { BatchHeader } from './types'
import { ByteReader, sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from './varint'

/*
 * Record-level rewriting of a stored v2 batch for the log cleaner, as Kafka's MemoryRecords.filterTo does:
 * the batch keeps its base offset, its last offset delta (so the producer's last sequence survives compaction),
 * partition leader epoch, producer id/epoch, base sequence and transactional/control flags; only records go.
 * Retained records are copied verbatim except for their timestamp delta when the batch's base timestamp
 * becomes a delete horizon (KIP-534).
 */

/** One record of an uncompressed batch, located in the batch bytes. */
export interface RecordSlot {
  offset: number
  timestamp: number
  /** The key bytes (a view into the batch), null for a keyless record. */
  key: Uint8Array | null
  /** A tombstone: the value is null. */
  isTombstone: boolean
  /** Byte range of the record body after its length varint, and where the key starts (after the offset delta). */
  bodyStart: number
  bodyEnd: number
  tailStart: number
  offsetDelta: number
}

/** The records of an uncompressed batch, located but not copied. */
export function recordSlots(batch: Uint8Array, header: BatchHeader): RecordSlot[] {
  if (header.compression !== 'none') {
    throw new StorageError('UNSUPPORTED_COMPRESSION_TYPE', `batch at offset ${header.baseOffset} uses ${header.compression}; only uncompressed batches are compacted`)
  }
  const reader = new ByteReader(batch, BATCH_HEADER_SIZE, header.sizeInBytes)
  const out: RecordSlot[] = []
  for (let i = 0; i < header.recordCount; i++) {
    const length = reader.varint()
    const bodyStart = reader.pos
    const bodyEnd = bodyStart + length
    if (length < 0 || bodyEnd > header.sizeInBytes) throw new StorageError('CORRUPT_RECORD', `record ${i} of batch ${header.baseOffset} overruns the batch`)
    reader.int8()
    const timestampDelta = reader.varlong()
    const offsetDelta = reader.varint()
    const tailStart = reader.pos
    const keyLength = reader.varint()
    const key = keyLength < 0 ? null : reader.view(keyLength)
    const valueLength = reader.varint()
    out.push({
      offset: header.baseOffset + offsetDelta,
      timestamp: header.timestampType === 'LogAppendTime' ? header.maxTimestamp : header.baseTimestamp + timestampDelta,
      key,
      isTombstone: valueLength < 0,
      bodyStart,
      bodyEnd,
      tailStart,
      offsetDelta,
    })
    reader.pos = bodyEnd
  }
  return out
}

export interface RebuildOptions {
  /** Sets the batch's delete horizon (attribute bit 6, base timestamp = horizon), as the first clean of a tombstone does. */
  deleteHorizonMs?: number
}

/**
 * A new batch holding only `kept` (slots of `batch`, in order). With nothing kept it is Kafka's empty batch
 * header, which keeps a producer's last sequence and epoch in the log.
 */
export function rebuildBatch(batch: Uint8Array, header: BatchHeader, kept: readonly RecordSlot[], crc32c: Crc32c, options: RebuildOptions = {}): Uint8Array {
  const horizon = options.deleteHorizonMs
  const baseTimestamp = kept.length === 0 ? header.maxTimestamp : horizon ?? header.baseTimestamp
  let maxTimestamp = kept.length === 0 || header.timestampType === 'LogAppendTime' ? header.maxTimestamp : -1
  const bodies: Array<{ slot: RecordSlot; size: number; timestampDelta: number }> = []
  let total = BATCH_HEADER_SIZE
  for (const slot of kept) {
    if (header.timestampType === 'CreateTime' && slot.timestamp > maxTimestamp) maxTimestamp = slot.timestamp
    const timestampDelta = header.timestampType === 'LogAppendTime' ? 0 : slot.timestamp - baseTimestamp
    const size = 1 + sizeOfVarlong(timestampDelta) + sizeOfVarint(slot.offsetDelta) + (slot.bodyEnd - slot.tailStart)
    bodies.push({ slot, size, timestampDelta })
    total += sizeOfVarint(size) + size
  }
  const out = new Uint8Array(total)
  let pos = BATCH_HEADER_SIZE
  for (const { slot, size, timestampDelta } of bodies) {
    pos = writeVarint(out, pos, size)
    out[pos++] = batch[slot.bodyStart]!
    pos = writeVarlong(out, pos, timestampDelta)
    pos = writeVarint(out, pos, slot.offsetDelta)
    out.set(batch.subarray(slot.tailStart, slot.bodyEnd), pos)
    pos += slot.bodyEnd - slot.tailStart
  }
  rewriteBatchHeader(out, header, { sizeInBytes: total, recordCount: kept.length, baseTimestamp, maxTimestamp, deleteHorizon: horizon !== undefined && kept.length > 0 }, crc32c)
  return out
}
