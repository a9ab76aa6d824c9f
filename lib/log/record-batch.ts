// Over 400 lines on purpose: Kafka's record batch v2 format in one place (header, records, varints, control records, CRC): its encoder and decoder must agree byte for byte, so they stay side by side.
import { StorageError } from './errors'
import type {
  BatchHeader,
  CompressionType,
  ControlInfo,
  ControlType,
  LogRecord,
  RecordHeader,
  RecordInput,
  RecordType,
} from './types'
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE } from './types'
import { ByteReader, readInt64, sizeOfVarint, sizeOfVarlong, writeInt64, writeVarint, writeVarlong } from './varint'

/*
 * Kafka record batch, magic v2 (DefaultRecordBatch.java), byte for byte:
 *
 *   0  baseOffset int64          27 baseTimestamp int64
 *   8  batchLength int32         35 maxTimestamp int64
 *  12  partitionLeaderEpoch      43 producerId int64
 *  16  magic int8 (= 2)          51 producerEpoch int16
 *  17  crc uint32                53 baseSequence int32
 *  21  attributes int16          57 recordCount int32
 *  23  lastOffsetDelta int32     61 records...
 *
 * batchLength counts the bytes after itself; the CRC32C covers attributes..end, so baseOffset,
 * batchLength and partitionLeaderEpoch can be set without recomputing it (Kafka relies on that).
 * The CRC function is injected: lib/ stays pure, the server passes the native one.
 */

/** CRC32C (Castagnoli) of a byte range. */
export type Crc32c = (data: Uint8Array) => number

export const LOG_OVERHEAD = 12
export const BATCH_HEADER_SIZE = 61
export const MAGIC_V2 = 2

const OFFSET_LENGTH = 8
const OFFSET_PARTITION_LEADER_EPOCH = 12
const OFFSET_MAGIC = 16
const OFFSET_CRC = 17
const OFFSET_ATTRIBUTES = 21
const OFFSET_LAST_OFFSET_DELTA = 23
const OFFSET_BASE_TIMESTAMP = 27
const OFFSET_MAX_TIMESTAMP = 35
const OFFSET_PRODUCER_ID = 43
const OFFSET_PRODUCER_EPOCH = 51
const OFFSET_BASE_SEQUENCE = 53
const OFFSET_RECORD_COUNT = 57

const ATTR_COMPRESSION_MASK = 0x07
const ATTR_TIMESTAMP_TYPE = 0x08
const ATTR_TRANSACTIONAL = 0x10
const ATTR_CONTROL = 0x20
const ATTR_DELETE_HORIZON = 0x40

const COMPRESSION: readonly CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

export const CONTROL_TYPE_IDS = { ABORT: 0, COMMIT: 1, MIRROR_PID_RESET: 7 } as const satisfies Record<ControlType, number>

const CONTROL_TYPE_BY_ID: ReadonlyMap<number, ControlType> = new Map(
  (Object.entries(CONTROL_TYPE_IDS) as Array<[ControlType, number]>).map(([type, id]) => [id, type]),
)

const INT32_MAX = 2147483647
const utf8Encoder = new TextEncoder()
const utf8Decoder = new TextDecoder('utf-8', { fatal: false })

export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Kafka's sequence arithmetic: sequences wrap from int32 max to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1
  return sequence + increment
}

/** Size of the batch starting at `pos`, or undefined when fewer than 12 bytes remain. */
export function batchSizeAt(view: DataView, pos: number): number | undefined {
  if (pos + LOG_OVERHEAD > view.byteLength) return undefined
  return view.getInt32(pos + OFFSET_LENGTH) + LOG_OVERHEAD
}

/** Base offset and last offset of the batch at `pos` (needs 27 bytes), without decoding the rest. */
export function batchOffsetsAt(view: DataView, pos: number): { baseOffset: number; lastOffset: number } {
  const baseOffset = readInt64(view, pos)
  return { baseOffset, lastOffset: baseOffset + view.getInt32(pos + OFFSET_LAST_OFFSET_DELTA) }
}

/** Decodes the fixed header of the batch at `pos` (needs 61 bytes). No CRC check. */
export function readBatchHeader(view: DataView, pos = 0): BatchHeader {
  if (pos + BATCH_HEADER_SIZE > view.byteLength) throw new StorageError('CORRUPT_RECORD', 'record batch header is truncated')
  const magic = view.getInt8(pos + OFFSET_MAGIC)
  if (magic !== MAGIC_V2) throw new StorageError('CORRUPT_RECORD', `unsupported record batch magic ${magic}`)
  const baseOffset = readInt64(view, pos)
  const attributes = view.getInt16(pos + OFFSET_ATTRIBUTES)
  const lastOffsetDelta = view.getInt32(pos + OFFSET_LAST_OFFSET_DELTA)
  const producerId = readInt64(view, pos + OFFSET_PRODUCER_ID)
  const baseSequence = view.getInt32(pos + OFFSET_BASE_SEQUENCE)
  const compression = COMPRESSION[attributes & ATTR_COMPRESSION_MASK]
  if (compression === undefined) throw new StorageError('CORRUPT_RECORD', `unknown compression codec id ${attributes & ATTR_COMPRESSION_MASK}`)
  return {
    baseOffset,
    lastOffset: baseOffset + lastOffsetDelta,
    sizeInBytes: view.getInt32(pos + OFFSET_LENGTH) + LOG_OVERHEAD,
    partitionLeaderEpoch: view.getInt32(pos + OFFSET_PARTITION_LEADER_EPOCH),
    magic: MAGIC_V2,
    crc: view.getUint32(pos + OFFSET_CRC),
    attributes,
    compression,
    timestampType: attributes & ATTR_TIMESTAMP_TYPE ? 'LogAppendTime' : 'CreateTime',
    isTransactional: (attributes & ATTR_TRANSACTIONAL) !== 0,
    isControl: (attributes & ATTR_CONTROL) !== 0,
    hasDeleteHorizon: (attributes & ATTR_DELETE_HORIZON) !== 0,
    lastOffsetDelta,
    baseTimestamp: readInt64(view, pos + OFFSET_BASE_TIMESTAMP),
    maxTimestamp: readInt64(view, pos + OFFSET_MAX_TIMESTAMP),
    producerId,
    producerEpoch: view.getInt16(pos + OFFSET_PRODUCER_EPOCH),
    baseSequence,
    lastSequence: baseSequence < 0 ? NO_SEQUENCE : incrementSequence(baseSequence, lastOffsetDelta),
    recordCount: view.getInt32(pos + OFFSET_RECORD_COUNT),
  }
}

/**
 * Checks the batch at `pos` the way Kafka's log recovery does: complete, sane length, magic 2, CRC32C.
 * Returns its header; throws CORRUPT_RECORD otherwise.
 */
export function validateBatchAt(bytes: Uint8Array, view: DataView, pos: number, crc32c: Crc32c): BatchHeader {
  const size = batchSizeAt(view, pos)
  if (size === undefined) throw new StorageError('CORRUPT_RECORD', `record batch at byte ${pos} is truncated (no length)`)
  if (size < BATCH_HEADER_SIZE) throw new StorageError('CORRUPT_RECORD', `record batch at byte ${pos} has invalid length ${size - LOG_OVERHEAD}`)
  if (pos + size > view.byteLength) throw new StorageError('CORRUPT_RECORD', `record batch at byte ${pos} is truncated (${size} bytes expected)`)
  const header = readBatchHeader(view, pos)
  const actual = crc32c(bytes.subarray(pos + OFFSET_ATTRIBUTES, pos + size)) >>> 0
  if (actual !== header.crc) {
    throw new StorageError('CORRUPT_RECORD', `record batch at offset ${header.baseOffset} has CRC ${header.crc.toString(16)}, computed ${actual.toString(16)}`)
  }
  if (header.lastOffsetDelta < 0) throw new StorageError('CORRUPT_RECORD', `record batch at offset ${header.baseOffset} has negative lastOffsetDelta`)
  return header
}

/** The CRC32C a batch's bytes have now, over the range its stored CRC covers (attributes to the end). */
export function computedBatchCrc(batch: Uint8Array, crc32c: Crc32c): number {
  return crc32c(batch.subarray(OFFSET_ATTRIBUTES)) >>> 0
}

// ENCODING

export interface BatchSpec {
  baseOffset: number
  partitionLeaderEpoch: number
  producerId?: number
  producerEpoch?: number
  baseSequence?: number
  isTransactional?: boolean
  /** Create time given to records without their own timestamp. */
  timestamp: number
  records: readonly RecordInput[]
}

export interface ControlBatchSpec {
  baseOffset: number
  partitionLeaderEpoch: number
  producerId: number
  producerEpoch: number
  isTransactional: boolean
  timestamp: number
  typeId: number
  /** The control record's value (Kafka: EndTransactionMarker or MirrorPidResetRecord). */
  value: Uint8Array
}

function toBytes(value: Uint8Array | string | null | undefined): Uint8Array | null {
  if (value === null || value === undefined) return null
  return typeof value === 'string' ? utf8Encoder.encode(value) : value
}

const NO_HEADERS: Array<{ key: Uint8Array; value: Uint8Array | null }> = []

interface PreparedRecord {
  key: Uint8Array | null
  value: Uint8Array | null
  headers: Array<{ key: Uint8Array; value: Uint8Array | null }>
  timestampDelta: number
  bodySize: number
}

/** Returns writable memory of exactly `size` bytes; its content need not be zeroed (every byte is written). */
export type Allocate = (size: number) => Uint8Array

const allocateFresh: Allocate = (size) => new Uint8Array(size)

/**
 * Encodes a data batch (no compression, CreateTime) with offsets baseOffset..baseOffset+n-1. `allocate` lets a
 * caller that writes the bytes out immediately reuse one scratch buffer instead of fresh memory per batch.
 */
export function encodeBatch(spec: BatchSpec, crc32c: Crc32c, allocate: Allocate = allocateFresh): Uint8Array {
  const records = spec.records
  if (records.length === 0) throw new StorageError('VALIDATION_FAILED', 'a record batch needs at least one record')
  const baseTimestamp = records[0]!.timestamp ?? spec.timestamp
  let maxTimestamp = baseTimestamp
  const prepared: PreparedRecord[] = new Array(records.length)
  let total = BATCH_HEADER_SIZE
  for (let i = 0; i < records.length; i++) {
    const input = records[i]!
    const timestamp = input.timestamp ?? spec.timestamp
    if (!Number.isSafeInteger(timestamp)) throw new StorageError('VALIDATION_FAILED', `record ${i} has an invalid timestamp`)
    if (timestamp > maxTimestamp) maxTimestamp = timestamp
    const key = toBytes(input.key)
    const value = toBytes(input.value)
    const headers = input.headers === undefined || input.headers.length === 0 ? NO_HEADERS : input.headers.map((h) => ({ key: utf8Encoder.encode(h.key), value: toBytes(h.value) }))
    const timestampDelta = timestamp - baseTimestamp
    let bodySize = 1 + sizeOfVarlong(timestampDelta) + sizeOfVarint(i)
    bodySize += key === null ? 1 : sizeOfVarint(key.length) + key.length
    bodySize += value === null ? 1 : sizeOfVarint(value.length) + value.length
    bodySize += sizeOfVarint(headers.length)
    for (const h of headers) {
      bodySize += sizeOfVarint(h.key.length) + h.key.length
      bodySize += h.value === null ? 1 : sizeOfVarint(h.value.length) + h.value.length
    }
    prepared[i] = { key, value, headers, timestampDelta, bodySize }
    total += sizeOfVarint(bodySize) + bodySize
  }

  const bytes = allocate(total)
  const view = viewOf(bytes)
  writeBatchHeader(view, {
    baseOffset: spec.baseOffset,
    sizeInBytes: total,
    partitionLeaderEpoch: spec.partitionLeaderEpoch,
    attributes: spec.isTransactional ? ATTR_TRANSACTIONAL : 0,
    lastOffsetDelta: records.length - 1,
    baseTimestamp,
    maxTimestamp,
    producerId: spec.producerId ?? NO_PRODUCER_ID,
    producerEpoch: spec.producerEpoch ?? NO_PRODUCER_EPOCH,
    baseSequence: spec.baseSequence ?? NO_SEQUENCE,
    recordCount: records.length,
  })
  let pos = BATCH_HEADER_SIZE
  for (let i = 0; i < prepared.length; i++) {
    const r = prepared[i]!
    pos = writeVarint(bytes, pos, r.bodySize)
    bytes[pos++] = 0 // record attributes: unused in v2
    pos = writeVarlong(bytes, pos, r.timestampDelta)
    pos = writeVarint(bytes, pos, i)
    pos = writeNullableBytes(bytes, pos, r.key)
    pos = writeNullableBytes(bytes, pos, r.value)
    pos = writeVarint(bytes, pos, r.headers.length)
    for (const h of r.headers) {
      pos = writeNullableBytes(bytes, pos, h.key)
      pos = writeNullableBytes(bytes, pos, h.value)
    }
  }
  view.setUint32(OFFSET_CRC, crc32c(bytes.subarray(OFFSET_ATTRIBUTES)) >>> 0)
  return bytes
}

/** Encodes a control batch of one record (key = int16 version 0 + int16 type id). */
export function encodeControlBatch(spec: ControlBatchSpec, crc32c: Crc32c): Uint8Array {
  const key = new Uint8Array(4)
  viewOf(key).setInt16(2, spec.typeId)
  const bodySize = 1 + 1 + 1 + 1 + key.length + sizeOfVarint(spec.value.length) + spec.value.length + 1
  const total = BATCH_HEADER_SIZE + sizeOfVarint(bodySize) + bodySize
  const bytes = new Uint8Array(total)
  const view = viewOf(bytes)
  writeBatchHeader(view, {
    baseOffset: spec.baseOffset,
    sizeInBytes: total,
    partitionLeaderEpoch: spec.partitionLeaderEpoch,
    attributes: ATTR_CONTROL | (spec.isTransactional ? ATTR_TRANSACTIONAL : 0),
    lastOffsetDelta: 0,
    baseTimestamp: spec.timestamp,
    maxTimestamp: spec.timestamp,
    producerId: spec.producerId,
    producerEpoch: spec.producerEpoch,
    baseSequence: NO_SEQUENCE,
    recordCount: 1,
  })
  let pos = writeVarint(bytes, BATCH_HEADER_SIZE, bodySize)
  bytes[pos++] = 0
  pos = writeVarlong(bytes, pos, 0)
  pos = writeVarint(bytes, pos, 0)
  pos = writeNullableBytes(bytes, pos, key)
  pos = writeNullableBytes(bytes, pos, spec.value)
  writeVarint(bytes, pos, 0)
  view.setUint32(OFFSET_CRC, crc32c(bytes.subarray(OFFSET_ATTRIBUTES)) >>> 0)
  return bytes
}

/** Value of a COMMIT/ABORT control record: int16 version 0 + int32 coordinatorEpoch. */
export function endTxnMarkerValue(coordinatorEpoch: number): Uint8Array {
  const value = new Uint8Array(6)
  viewOf(value).setInt32(2, coordinatorEpoch)
  return value
}

/** Value of a MIRROR_PID_RESET control record: int16 version 0. */
export function mirrorPidResetValue(): Uint8Array {
  return new Uint8Array(2)
}

interface HeaderFields {
  baseOffset: number
  sizeInBytes: number
  partitionLeaderEpoch: number
  attributes: number
  lastOffsetDelta: number
  baseTimestamp: number
  maxTimestamp: number
  producerId: number
  producerEpoch: number
  baseSequence: number
  recordCount: number
}

function writeBatchHeader(view: DataView, h: HeaderFields): void {
  writeInt64(view, 0, h.baseOffset)
  view.setInt32(OFFSET_LENGTH, h.sizeInBytes - LOG_OVERHEAD)
  view.setInt32(OFFSET_PARTITION_LEADER_EPOCH, h.partitionLeaderEpoch)
  view.setInt8(OFFSET_MAGIC, MAGIC_V2)
  view.setInt16(OFFSET_ATTRIBUTES, h.attributes)
  view.setInt32(OFFSET_LAST_OFFSET_DELTA, h.lastOffsetDelta)
  writeInt64(view, OFFSET_BASE_TIMESTAMP, h.baseTimestamp)
  writeInt64(view, OFFSET_MAX_TIMESTAMP, h.maxTimestamp)
  writeInt64(view, OFFSET_PRODUCER_ID, h.producerId)
  view.setInt16(OFFSET_PRODUCER_EPOCH, h.producerEpoch)
  view.setInt32(OFFSET_BASE_SEQUENCE, h.baseSequence)
  view.setInt32(OFFSET_RECORD_COUNT, h.recordCount)
}

/**
 * Writes the header of a rebuilt batch (the cleaner's) into `bytes[0..61)` from the original header: same base
 * offset, last offset delta, leader epoch, producer fields and flags; the given size, count and timestamps;
 * the delete-horizon bit as told. Then computes the CRC over the records already in place.
 */
export function rewriteBatchHeader(
  bytes: Uint8Array,
  original: BatchHeader,
  changes: { sizeInBytes: number; recordCount: number; baseTimestamp: number; maxTimestamp: number; deleteHorizon: boolean },
  crc32c: Crc32c,
): void {
  const view = viewOf(bytes)
  const attributes = changes.deleteHorizon || (original.hasDeleteHorizon && changes.recordCount > 0) ? original.attributes | ATTR_DELETE_HORIZON : original.attributes & ~ATTR_DELETE_HORIZON
  writeBatchHeader(view, {
    baseOffset: original.baseOffset,
    sizeInBytes: changes.sizeInBytes,
    partitionLeaderEpoch: original.partitionLeaderEpoch,
    attributes,
    lastOffsetDelta: original.lastOffsetDelta,
    baseTimestamp: changes.baseTimestamp,
    maxTimestamp: changes.maxTimestamp,
    producerId: original.producerId,
    producerEpoch: original.producerEpoch,
    baseSequence: original.baseSequence,
    recordCount: changes.recordCount,
  })
  view.setUint32(OFFSET_CRC, crc32c(bytes.subarray(OFFSET_ATTRIBUTES)) >>> 0)
}

function writeNullableBytes(bytes: Uint8Array, pos: number, value: Uint8Array | null): number {
  if (value === null) return writeVarint(bytes, pos, -1)
  pos = writeVarint(bytes, pos, value.length)
  bytes.set(value, pos)
  return pos + value.length
}

// DECODING

/**
 * The control record of a control batch (`bytes` = the whole batch). Reads only the first record's key and
 * value, so it is cheap enough for the follower path.
 */
export function readControlInfo(batch: Uint8Array, header: BatchHeader): ControlInfo {
  // The cleaner empties a control batch whose transaction is gone but keeps it for its producer's epoch.
  if (header.recordCount === 0) return { typeId: -1, type: 'CONTROL' }
  if (header.compression !== 'none') {
    throw new StorageError('UNSUPPORTED_COMPRESSION_TYPE', `control batch at offset ${header.baseOffset} is compressed`)
  }
  const reader = new ByteReader(batch, BATCH_HEADER_SIZE, header.sizeInBytes)
  const length = reader.varint()
  const recordEnd = reader.pos + length
  reader.int8()
  reader.varlong()
  reader.varint()
  const keyLength = reader.varint()
  if (keyLength < 4) throw new StorageError('CORRUPT_RECORD', `control record at offset ${header.baseOffset} has a ${keyLength}-byte key`)
  const keyView = viewOf(reader.view(keyLength))
  const typeId = keyView.getInt16(2)
  const type = CONTROL_TYPE_BY_ID.get(typeId) ?? 'CONTROL'
  const info: ControlInfo = { typeId, type }
  if (type === 'COMMIT' || type === 'ABORT') {
    const valueLength = reader.varint()
    if (valueLength < 6) throw new StorageError('CORRUPT_RECORD', `end transaction marker at offset ${header.baseOffset} is too short`)
    info.coordinatorEpoch = viewOf(reader.view(valueLength)).getInt32(2)
  }
  if (reader.pos > recordEnd) throw new StorageError('CORRUPT_RECORD', `control record at offset ${header.baseOffset} overruns its length`)
  return info
}

function recordTypeOf(header: BatchHeader, control: ControlInfo | undefined): RecordType {
  if (!header.isControl) return 'DATA'
  return control?.type ?? 'CONTROL'
}

/**
 * Decodes every record of one batch (`batch` = exactly the batch's bytes, e.g. `StoredBatch.raw`).
 * Keys, values and header values are views into `batch`. Compressed batches throw
 * UNSUPPORTED_COMPRESSION_TYPE (only codec "none" is implemented).
 */
export function decodeBatchRecords(batch: Uint8Array, header: BatchHeader = readBatchHeader(viewOf(batch))): LogRecord[] {
  if (header.compression !== 'none') {
    throw new StorageError('UNSUPPORTED_COMPRESSION_TYPE', `batch at offset ${header.baseOffset} uses ${header.compression}; only uncompressed batches are decoded`)
  }
  // A control batch the cleaner emptied keeps only its header (its producer's epoch): nothing to decode.
  if (header.recordCount === 0) return []
  const control = header.isControl ? readControlInfo(batch, header) : undefined
  const type = recordTypeOf(header, control)
  const producerId = header.producerId === NO_PRODUCER_ID ? null : header.producerId
  const reader = new ByteReader(batch, BATCH_HEADER_SIZE, header.sizeInBytes)
  const out: LogRecord[] = []
  for (let i = 0; i < header.recordCount; i++) {
    const length = reader.varint()
    const recordEnd = reader.pos + length
    if (length < 0 || recordEnd > header.sizeInBytes) throw new StorageError('CORRUPT_RECORD', `record ${i} of batch ${header.baseOffset} overruns the batch`)
    reader.int8()
    const timestampDelta = reader.varlong()
    const offsetDelta = reader.varint()
    const keyLength = reader.varint()
    const key = keyLength < 0 ? null : reader.view(keyLength)
    const valueLength = reader.varint()
    const value = valueLength < 0 ? null : reader.view(valueLength)
    const headerCount = reader.varint()
    if (headerCount < 0) throw new StorageError('CORRUPT_RECORD', `record ${i} of batch ${header.baseOffset} has ${headerCount} headers`)
    const headers: RecordHeader[] = []
    for (let h = 0; h < headerCount; h++) {
      const hk = reader.varint()
      if (hk < 0) throw new StorageError('CORRUPT_RECORD', `null header key in batch ${header.baseOffset}`)
      const headerKey = utf8Decoder.decode(reader.view(hk))
      const hv = reader.varint()
      headers.push({ key: headerKey, value: hv < 0 ? null : reader.view(hv) })
    }
    if (reader.pos !== recordEnd) throw new StorageError('CORRUPT_RECORD', `record ${i} of batch ${header.baseOffset} does not match its length`)
    const record: LogRecord = {
      offset: header.baseOffset + offsetDelta,
      type,
      producerId,
      producerEpoch: header.producerEpoch,
      sequence: header.baseSequence < 0 ? NO_SEQUENCE : incrementSequence(header.baseSequence, offsetDelta),
      leaderEpoch: header.partitionLeaderEpoch,
      transactional: header.isTransactional,
      timestamp: header.timestampType === 'LogAppendTime' ? header.maxTimestamp : header.baseTimestamp + timestampDelta,
      timestampType: header.timestampType,
      key,
      value,
      headers,
    }
    if (control) {
      record.controlTypeId = control.typeId
      if (control.coordinatorEpoch !== undefined) record.coordinatorEpoch = control.coordinatorEpoch
    }
    out.push(record)
  }
  if (reader.pos !== header.sizeInBytes) throw new StorageError('CORRUPT_RECORD', `batch ${header.baseOffset} has trailing bytes`)
  return out
}

export interface ScannedBatch {
  header: BatchHeader
  /** Byte position of the batch in the scanned buffer. */
  position: number
}

/**
 * Splits a buffer of concatenated batches, validating each (length, magic, CRC32C when `crc32c` is given).
 * Throws CORRUPT_RECORD at the first invalid or incomplete batch.
 */
export function splitBatches(bytes: Uint8Array, crc32c?: Crc32c): ScannedBatch[] {
  const view = viewOf(bytes)
  const out: ScannedBatch[] = []
  let pos = 0
  while (pos < bytes.length) {
    let header: BatchHeader
    if (crc32c) {
      header = validateBatchAt(bytes, view, pos, crc32c)
    } else {
      const size = batchSizeAt(view, pos)
      if (size === undefined || size < BATCH_HEADER_SIZE || pos + size > bytes.length) {
        throw new StorageError('CORRUPT_RECORD', `record batch at byte ${pos} is truncated`)
      }
      header = readBatchHeader(view, pos)
    }
    out.push({ header, position: pos })
    pos += header.sizeInBytes
  }
  return out
}
