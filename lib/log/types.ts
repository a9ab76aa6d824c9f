/**
 * Shared vocabulary of the record-batch layer: what a stored batch and a decoded record look like.
 * Offsets, epochs, producer ids and timestamps are JS numbers (Kafka int64 on disk, always below 2^53
 * in the clusters we model; decoding a larger value throws CORRUPT_RECORD rather than rounding).
 */

/** The control records this project understands. Kafka's ids: ABORT=0, COMMIT=1, MIRROR_PID_RESET=7 (KIP-1279). */
export type ControlType = 'ABORT' | 'COMMIT' | 'MIRROR_PID_RESET'

/**
 * The type of one decoded record. `CONTROL` is any other control record (Kafka's LEADER_CHANGE, snapshot
 * markers, ...), which a data partition should never hold but a verbatim copy may carry.
 */
export type RecordType = 'DATA' | ControlType | 'CONTROL'

export type CompressionType = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'

export type TimestampType = 'CreateTime' | 'LogAppendTime'

/** Sentinels of the v2 format. */
export const NO_PRODUCER_ID = -1
export const NO_PRODUCER_EPOCH = -1
export const NO_SEQUENCE = -1
export const NO_PARTITION_LEADER_EPOCH = -1
export const NO_TIMESTAMP = -1
/** `latestEpoch()` of an empty epoch cache; also the epoch half of an undefined EpochEndOffset. */
export const UNDEFINED_EPOCH = -1
export const UNDEFINED_EPOCH_OFFSET = -1

/** Every field of a v2 batch header, decoded (cheap: fixed positions in the first 61 bytes). */
export interface BatchHeader {
  baseOffset: number
  /** baseOffset + lastOffsetDelta. Records may be fewer than the offsets spanned (compacted sources). */
  lastOffset: number
  /** Bytes of the whole batch on disk, including the 12-byte offset+length prefix. */
  sizeInBytes: number
  partitionLeaderEpoch: number
  magic: 2
  crc: number
  attributes: number
  compression: CompressionType
  timestampType: TimestampType
  isTransactional: boolean
  isControl: boolean
  /** Attribute bit 6 (KIP-534): baseTimestamp holds the delete horizon of a compacted batch. */
  hasDeleteHorizon: boolean
  lastOffsetDelta: number
  baseTimestamp: number
  maxTimestamp: number
  producerId: number
  producerEpoch: number
  baseSequence: number
  /** baseSequence + lastOffsetDelta (wrapping at int32 max), or -1 without sequence. */
  lastSequence: number
  recordCount: number
}

/** A control batch's single record, decoded (only for control batches). */
export interface ControlInfo {
  /** Kafka's type id (key bytes 2..3). */
  typeId: number
  type: ControlType | 'CONTROL'
  /** COMMIT/ABORT only: the coordinator epoch of the end-transaction marker. */
  coordinatorEpoch?: number
}

export interface RecordHeader {
  key: string
  value: Uint8Array | null
}

/** One decoded record, data or control ("records" view of the API and of read()). */
export interface LogRecord {
  offset: number
  type: RecordType
  /** Kafka's control type id for control records (0, 1, 7, ...), undefined for data. */
  controlTypeId?: number
  /** COMMIT/ABORT markers only. */
  coordinatorEpoch?: number
  /** null when the batch has no producer id (-1). */
  producerId: number | null
  producerEpoch: number
  /** Sequence of this record (baseSequence + offsetDelta), -1 without producer id. */
  sequence: number
  /** The batch's partitionLeaderEpoch. */
  leaderEpoch: number
  transactional: boolean
  timestamp: number
  timestampType: TimestampType
  /** Views into the batch bytes: copy them if you keep them beyond the buffer's lifetime. */
  key: Uint8Array | null
  value: Uint8Array | null
  headers: RecordHeader[]
}

/** What a producer hands to `appendAsLeader`: strings are written as UTF-8. */
export interface RecordInput {
  key?: Uint8Array | string | null
  value: Uint8Array | string | null
  headers?: ReadonlyArray<{ key: string; value: Uint8Array | string | null }>
  /** Create time in ms; defaults to the append time. */
  timestamp?: number
}

/** One (epoch, startOffset) entry of the leader-epoch cache. */
export interface EpochEntry {
  epoch: number
  startOffset: number
}

/** Answer of an OffsetsForLeaderEpoch lookup; (-1, -1) means undefined. */
export interface EpochEndOffset {
  leaderEpoch: number
  endOffset: number
}

/** An aborted transaction as kept in Kafka's `.txnindex`: data of `producerId` in [firstOffset, lastOffset] is aborted. */
export interface AbortedTransaction {
  producerId: number
  firstOffset: number
  /** Offset of the ABORT marker. */
  lastOffset: number
  /** The LSO right after the abort completed (Kafka writes it to the index; informational). */
  lastStableOffset: number
}

/** A transaction that has data in a partition but no COMMIT/ABORT marker yet (the one definition: lib, storage, ports). */
export interface OpenTransaction {
  producerId: number
  producerEpoch: number
  /** Offset of the transaction's first record in this partition; markers are appended in this order. */
  firstOffset: number
}

/** Kafka's fetch isolation levels: read_committed stops at the last stable offset and leaves aborted data out. */
export const ISOLATION_LEVELS = ['read_uncommitted', 'read_committed'] as const
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number]
