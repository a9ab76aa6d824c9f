import 'server-only'
import type {
  AbortedTransaction,
  BatchHeader,
  ControlType,
  EpochEndOffset,
  EpochEntry,
  OpenTransaction,
  RecordInput,
} from '@/lib/log/types'

/**
 * Public contract of the durable per-partition log (one instance per replica). The implementation is
 * `PartitionLog` in `partition-log.ts`; see README.md for the on-disk layout and durability rules.
 *
 * Every mutating method validates its whole input before touching anything (bad input changes nothing)
 * and resolves only once the change is durable (fdatasync'd). Errors are `StorageError`s with a `code`.
 */

export interface PartitionLogConfig {
  /** Kafka `segment.bytes`: roll the active segment before an append would make it larger. Default 64 MiB. */
  segmentBytes?: number
  /** Kafka `segment.ms`: roll when the active segment's first batch is older than this. Default 7 days. */
  segmentMs?: number
  /** Kafka `index.interval.bytes`: bytes between sparse offset/time index entries. Default 4096. */
  indexIntervalBytes?: number
  /** Kafka `retention.bytes`: -1 = unlimited (default). Applied by `applyRetention()`, whole segments only. */
  retentionBytes?: number
  /** Kafka `retention.ms`: -1 = unlimited. Default 7 days. Applied by `applyRetention()`. */
  retentionMs?: number
  /** Kafka `message.max.bytes`: largest batch `appendAsLeader` accepts. Default 1048588. */
  maxMessageBytes?: number
  /**
   * Minimum interval between background high-watermark checkpoints of this log's own `high-watermark-checkpoint`.
   * Default 5000 ms. null: the owner checkpoints high watermarks itself (a broker's replication-offset-checkpoint,
   * one file for all its replicas, as Kafka's ReplicaManager does), so the log writes none, neither in the
   * background nor at close; with thousands of partitions, one file per partition per change was thousands of
   * fsyncs in every burst.
   */
  highWatermarkCheckpointIntervalMs?: number | null
  /**
   * Open only: the high watermark the owner's checkpoint holds for this replica. null (default): the log's own
   * `high-watermark-checkpoint`, if any (also the fallback for a replica the owner's checkpoint does not list).
   */
  checkpointedHighWatermark?: number | null
  /**
   * Open only: the state of the log whose files these are copies of, at the instant of the copy
   * (LogFileSnapshot.closeState), used instead of the files a clean close writes. null (default): the files.
   */
  closeState?: LogCloseState | null
  /** Clock (ms since epoch) for record timestamps, segment.ms and retention.ms. Default `Date.now`. */
  now?: () => number
  /** Bounds the open writer descriptors shared with other logs. Default: the process-wide budget. */
  descriptorBudget?: import('./descriptor-budget').DescriptorBudget
  /** Kafka `cleanup.policy`: "delete" (default) applies retention; "compact" runs the cleaner instead; "compact,delete" both. */
  cleanupPolicy?: import('./cleaner/cleaner-config').CleanupPolicy
  /** Kafka `delete.retention.ms`: tombstones (and markers of emptied transactions) outlive their first clean by this. Default 1 day. */
  deleteRetentionMs?: number
  /** Kafka `min.cleanable.dirty.ratio`: when the background cleaner picks this log. Default 0.5. */
  minCleanableDirtyRatio?: number
  /** Kafka `min.compaction.lag.ms`: segments with records younger than this are not cleaned. Default 0. */
  minCompactionLagMs?: number
  /** The background cleaner compacted logs register with. Default: the process-wide one. */
  cleaner?: import('./cleaner/log-cleaner').LogCleaner
}

export interface AppendAsLeaderOptions {
  /** Current leader epoch of the partition; lower than the latest epoch in the log → FENCED_LEADER_EPOCH. */
  leaderEpoch: number
  /** Omit (or -1) for a plain batch. */
  producerId?: number
  producerEpoch?: number
  /** Required with a producerId: sequence of the first record. */
  baseSequence?: number
  /** Transactional data batch (requires a producerId). */
  transactional?: boolean
}

export interface AppendResult {
  baseOffset: number
  lastOffset: number
  /** True when an idempotent retry was recognised: nothing was appended, the offsets are the original ones. */
  duplicate: boolean
}

export interface AppendControlOptions {
  leaderEpoch: number
  /** COMMIT/ABORT: the transaction's producer. Ignored for MIRROR_PID_RESET (written with producerId -1). */
  producerId?: number
  producerEpoch?: number
  /** COMMIT/ABORT: the coordinator epoch written in the marker value. Default 0. */
  coordinatorEpoch?: number
}

export interface AppendAsFollowerOptions {
  /**
   * Accept a first baseOffset above the log end offset and gaps between batches (Kafka's follower rule,
   * needed for compacted sources). Default false: the batches must continue the log exactly.
   */
  allowOffsetGaps?: boolean
}

export interface FollowerAppendResult {
  /** Base offset of the first appended batch, or the log end offset when nothing was given. */
  firstOffset: number
  /** Last offset of the last appended batch, or logEndOffset - 1 when nothing was given. */
  lastOffset: number
  batchCount: number
  /** partitionLeaderEpoch of the last appended batch (-1 when nothing was given). */
  lastBatchEpoch: number
}

import type { IsolationLevel } from '@/lib/log/types'

export type { IsolationLevel }

export interface ReadOptions {
  /** read_uncommitted reads up to the high watermark, read_committed up to the last stable offset. */
  isolation?: IsolationLevel
  /**
   * Exclusive upper bound replacing the isolation's one (e.g. `logEndOffset` for a follower fetch); capped at
   * the log end offset. Only whole batches whose last offset is below the bound are returned.
   */
  maxOffset?: number
  /**
   * A buffer the records are read into when they fit: the result (records and batches) is then a view of it,
   * valid until the caller reads into it again. Without it, or when they do not fit, a fresh buffer.
   */
  into?: Buffer
}

/** One stored batch: its header and its exact bytes (a view into `ReadResult.records`). */
export interface StoredBatch extends BatchHeader {
  raw: Buffer
}

export interface ReadResult {
  /** The returned batches concatenated, exactly as stored: a follower/mirror appends this verbatim. */
  records: Buffer
  /** Built when first read (a fetch needs only `lastOffset`). */
  readonly batches: StoredBatch[]
  /** The last returned batch's last offset; null when none was returned. */
  lastOffset?: number | null
  highWatermark: number
  lastStableOffset: number
  logStartOffset: number
  logEndOffset: number
  /**
   * read_committed only: aborted transactions overlapping the returned range, ordered by firstOffset
   * (as in a Kafka fetch response). Empty for read_uncommitted.
   */
  abortedTransactions: Array<{ producerId: number; firstOffset: number }>
}

/** Producer-state entry as exposed for inspection. */
export interface ProducerStateView {
  producerId: number
  producerEpoch: number
  coordinatorEpoch: number
  lastSequence: number
  lastOffset: number
  lastTimestamp: number
  /** First offset of the open transaction, or null. */
  currentTxnFirstOffset: number | null
}

export interface RetentionResult {
  deletedSegments: number
  logStartOffset: number
}

export interface TimestampOffset {
  offset: number
  timestamp: number
  leaderEpoch: number
}

/**
 * What a log's directory holds at one instant, for a copy of it (a drill's sandbox): the segments in order with
 * the size each had then (the active one grows after; sealed ones never change but by truncation, retention or
 * a cleaner swap, which replace or remove files rather than rewrite them in place, truncation aside).
 */
export interface LogFileSnapshot {
  readonly dir: string
  readonly logStartOffset: number
  readonly logEndOffset: number
  readonly highWatermark: number
  readonly segments: ReadonlyArray<{ readonly baseOffset: number; readonly bytes: number; readonly active: boolean }>
  /**
   * What a clean close at that instant would have written beside the segments, taken from memory with the sizes
   * above. Handed to the copy's open (PartitionLogConfig.closeState), it opens as after a clean shutdown.
   */
  readonly closeState?: LogCloseState
}

/**
 * One log's state as a clean close would leave it in its files (the active segment's indexes, producer state at
 * the log end, epochs, log start, the marker vouching for the active segment's size and end), kept in memory for
 * the open of a copy of its files (a drill's sandbox): that open trusts it as it would a clean close's files,
 * instead of scanning and checksumming the active segment and replaying producer state.
 */
export interface LogCloseState {
  readonly activeIndexes: { readonly index: Uint8Array; readonly timeIndex: Uint8Array; readonly txnIndex: Uint8Array | null }
  readonly producerState: import('@/lib/log/producer-state').ProducerStateSnapshot
  readonly epochs: readonly EpochEntry[]
  readonly logStartOffset: number
  readonly cleanShutdown: { readonly logEndOffset: number; readonly activeBaseOffset: number; readonly activeSize: number }
}

export interface PartitionLogApi {
  readonly dir: string
  /** First offset readable; moved by deleteRecordsBefore, retention and truncateFullyAndStartAt. */
  readonly logStartOffset: number
  /** Offset the next appended batch gets. */
  readonly logEndOffset: number
  /** Set by the replication layer (updateHighWatermark), clamped to [logStartOffset, logEndOffset]. */
  readonly highWatermark: number
  /** read_committed bound: min(HW, first offset of any undecided transaction), never below logStartOffset. */
  readonly lastStableOffset: number
  /** Offsets below this are fdatasync'd (the recovery point). */
  readonly durableEndOffset: number

  /** Encodes and appends one batch as the partition leader (offsets assigned here). Resolves once durable. */
  appendAsLeader(records: readonly RecordInput[], options: AppendAsLeaderOptions): Promise<AppendResult>
  /** Appends one control batch: a COMMIT/ABORT marker for a producer, or the MIRROR_PID_RESET barrier. */
  appendControl(type: ControlType, options: AppendControlOptions): Promise<AppendResult>
  /** Appends already-offset batches verbatim (replication, mirroring); validates CRC and offsets first. */
  appendAsFollower(records: Uint8Array, options?: AppendAsFollowerOptions): Promise<FollowerAppendResult>
  /** Whole batches from the one holding `fetchOffset`, up to `maxBytes` (at least one batch) and the bound. */
  read(fetchOffset: number, maxBytes: number, options?: ReadOptions): Promise<ReadResult>
  /** The header of the batch holding `offset` when its last offset is below `bound`, else null (reads the header only). */
  batchHeaderAt(offset: number, bound: number): BatchHeader | null

  /** Sets the high watermark (clamped); returns the value kept. Also releases the LSO of replicated markers. */
  updateHighWatermark(offset: number): number
  /** Persists the high watermark in the log's own checkpoint now (it is otherwise checkpointed lazily and on close, unless the owner checkpoints it). */
  checkpointHighWatermark(): Promise<void>

  /** Newest epoch in the leader-epoch cache, -1 when empty. */
  latestEpoch(): number
  /** The leader-epoch cache, oldest first. */
  epochEntries(): EpochEntry[]
  /** OffsetsForLeaderEpoch; see README for every case. */
  endOffsetForEpoch(epoch: number): EpochEndOffset
  /** Epoch of the batch holding `offset` according to the cache, -1 when before the first entry. */
  epochForOffset(offset: number): number

  /** The segments and offsets as they are now, taken synchronously (no append can come between); see LogFileSnapshot. */
  fileSnapshot?(): LogFileSnapshot
  /** Transactions with data and no marker yet, ordered by first offset. */
  openTransactions(): OpenTransaction[]
  /** Every producer-state entry (for inspection and tests). */
  producerStates(): ProducerStateView[]
  /** Aborted transactions with a marker at or after `fromOffset` and data before `toOffset`. */
  abortedTransactions(fromOffset: number, toOffset: number): AbortedTransaction[]
  /** First record whose timestamp is ≥ `timestamp` (ListOffsets by time), or null when none. */
  offsetForTimestamp(timestamp: number): Promise<TimestampOffset | null>

  /**
   * Removes whole batches from the one holding `offset` onwards; `removedRecords` counts the offsets removed and
   * `logEndOffset` is the new end (below `offset` when it fell inside a batch).
   */
  truncateTo(offset: number): Promise<{ removedRecords: number; logEndOffset: number }>
  /** Deletes everything and restarts the log (start, end and HW) at `offset`; the epoch cache is emptied. */
  truncateFullyAndStartAt(offset: number): Promise<{ removedRecords: number }>
  /** Moves the log start offset to `offset` (≤ HW) and deletes segments wholly below it; returns the new start. */
  deleteRecordsBefore(offset: number): Promise<number>
  /**
   * Deletes whole old segments per retentionMs / retentionBytes (never the active one, never beyond the HW).
   * A log with cleanup.policy "compact" keeps everything (the cleaner bounds it instead).
   */
  applyRetention(): Promise<RetentionResult>
  /**
   * One log-cleaner pass now (the background cleaner runs the same when the dirty ratio says so): the latest
   * record per key is kept, offsets unchanged; see cleaner/cleaner.ts. Nothing to clean on a "delete" log.
   */
  compact(): Promise<import('./cleaner/cleaner').CleanOutcome>

  /** Resolves once everything written so far is durable. */
  flush(): Promise<void>
  /** Waits for pending appends, persists indexes and checkpoints, marks a clean shutdown, releases files. */
  close(): Promise<void>
  /**
   * Releases the files of a log whose directory is removed next (its topic was deleted): waits for what is in
   * flight, writes no index, snapshot or checkpoint (Kafka's UnifiedLog.delete). Four durable checkpoint
   * writes per replica made deleting a 400-partition topic take 20 s with the event loop blocked.
   */
  closeForDeletion(): Promise<void>
  /** Applies a topic's changed configs to the open log (Kafka's dynamic topic configs); refused whole when invalid. */
  updateConfig(config: PartitionLogConfig): void
}
