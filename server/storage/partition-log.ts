import 'server-only'
// Over 400 lines on purpose: the log facade (Kafka's UnifiedLog): the whole public API of a partition log, each a short delegation to local-log, loader, replay, checkpoints, append-batches, retention and cleaner/log-compaction.
import path from 'node:path'
import { StorageError } from '@/lib/log/errors'
import type { LeaderEpochCache } from '@/lib/log/leader-epoch-cache'
import { ProducerStateManager } from '@/lib/log/producer-state'
import { encodeBatch, incrementSequence, readBatchHeader, viewOf } from '@/lib/log/record-batch'
import { collectAbortedTransactions } from '@/lib/log/segment-index'
import { INT16_MAX, INT32_MAX, requireInteger, resolvePartitionLogConfig, type ResolvedConfig } from './partition-log-config'
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID, type AbortedTransaction, type BatchHeader, type ControlType, type EpochEndOffset, type EpochEntry, type OpenTransaction, type RecordInput } from '@/lib/log/types'
import type { CleanOutcome } from './cleaner/cleaner'
import { compacts } from './cleaner/cleaner-config'
import type { CleanableLog } from './cleaner/log-cleaner'
import { LogCompaction } from './cleaner/log-compaction'
import { controlBatch, followerBatches } from './append-batches'
import { crc32c } from './crc32c'
import { retentionCut } from './retention'
import { writeFilesDurablyAsync } from '@/server/util/durable-file'
import type { DescriptorHolder } from './descriptor-budget'
import { LocalLog, type PreparedBatch } from './local-log'
import { LogCheckpoints } from './log-checkpoints'
import { loadLog, settleLoadedDirectory } from './log-loader'
import { applyBatch, rebuildProducerState } from './log-replay'
import { deleteProducerSnapshots, producerSnapshotFile, writeProducerSnapshot } from './producer-snapshots'
import type { LogSegment } from './segment'
import type {
  AppendAsFollowerOptions,
  AppendAsLeaderOptions,
  AppendControlOptions,
  AppendResult,
  FollowerAppendResult,
  LogFileSnapshot,
  PartitionLogApi,
  PartitionLogConfig,
  ProducerStateView,
  ReadOptions,
  ReadResult,
  RetentionResult,
  TimestampOffset,
} from './types'

export { resolvePartitionLogConfig } from './partition-log-config'
export { CLEAN_SHUTDOWN_FILE, HIGH_WATERMARK_CHECKPOINT_FILE, LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE } from './log-checkpoints'

/**
 * The durable log of one partition replica (Kafka's UnifiedLog): validation of appends, the leader-epoch cache,
 * producer state, high watermark and log start offset, over the local segments (`LocalLog`), recovered on open
 * by `loadLog`. Contract and semantics: `types.ts` (PartitionLogApi) and README.md.
 *
 * All file I/O except the group-commit fdatasync is synchronous, so each method runs to completion without
 * interleaving: state in memory always matches the bytes in the page cache. Appends resolve once an fdatasync
 * that started after their write has completed.
 */
export class PartitionLog implements PartitionLogApi, DescriptorHolder, CleanableLog {
  private readonly local: LocalLog
  private epochCache: LeaderEpochCache
  private producerState: ProducerStateManager
  private currentLogStartOffset: number
  private currentHighWatermark: number
  private closed = false

  /** Reused for encoding leader batches: they are written synchronously and never referenced afterwards. */
  private scratch = Buffer.allocUnsafe(0)

  private lastHighWatermarkCheckpointAt = 0
  private checkpointedHighWatermark: number
  private highWatermarkCheckpointInFlight: Promise<void> | undefined

  /** The cleaner's state of this log and its hooks (cleaner/log-compaction.ts). */
  private readonly compaction: LogCompaction

  /** Files the load has done with, which open() removes before it fsyncs the directory; null once done (log-loader.ts). */
  private unsyncedLeftovers: readonly string[] | null

  private constructor(
    readonly dir: string,
    private readonly config: ResolvedConfig,
    private readonly checkpoints: LogCheckpoints,
  ) {
    const copied = config.closeState != null
    const loaded = loadLog(dir, checkpoints, config)
    // Used once: not kept for the log's life.
    config.closeState = null
    this.unsyncedLeftovers = loaded.directoryUnsynced ? loaded.leftovers : null
    this.local = new LocalLog(dir, loaded.segments, config, this, (error) => this.fail(error))
    this.local.commit.durableEndOffset = loaded.segments.active.nextOffset
    this.epochCache = loaded.epochCache
    this.producerState = loaded.producerState
    this.currentLogStartOffset = loaded.logStartOffset
    this.currentHighWatermark = loaded.highWatermark
    this.checkpointedHighWatermark = loaded.checkpointedHighWatermark
    this.compaction = new LogCompaction(
      {
        dir,
        segments: () => this.local.segments,
        usable: () => !this.closed && !this.local.commit.failed,
        logStartOffset: () => this.currentLogStartOffset,
        lastStableOffset: () => this.lastStableOffset,
        abortedTransactions: (from, to) => this.abortedTransactions(from, to),
        producers: () => this.producerState.entries(),
        config: () => this.config,
        writeCleanerOffset: (offset) => this.checkpoints.writeCleanerOffset(offset),
        fail: (error) => this.fail(error),
      },
      // A copy has no cleaner checkpoint (log-copy.ts does not take it): its cleaner starts over, as Kafka's does
      // without the file, and its open skips a read that finds nothing (one synchronous open per log).
      Math.min(Math.max((copied ? undefined : checkpoints.readCleanerOffset()) ?? 0, this.currentLogStartOffset), this.logEndOffset),
    )
    this.config.descriptorBudget.touch(this)
    if (compacts(this.config.cleanupPolicy)) this.config.cleaner.register(this)
  }

  /**
   * A topic's changed configs, applied to the open log as Kafka applies dynamic topic configs: segment sizes at
   * the next roll, retention at the next check, the cleanup policy at once (a log that now compacts joins the
   * cleaner; one that stops leaves it, a pass in flight giving up). Validated whole first: a refused change
   * changes nothing. The clock, descriptor budget and cleaner stay the ones the log was opened with.
   */
  updateConfig(config: PartitionLogConfig): void {
    this.ensureOpen()
    const next = resolvePartitionLogConfig({ ...config, now: this.config.now, descriptorBudget: this.config.descriptorBudget, cleaner: this.config.cleaner })
    const compacted = compacts(this.config.cleanupPolicy)
    // In place: the local segments read the same object.
    Object.assign(this.config, next)
    if (compacted && !compacts(next.cleanupPolicy)) {
      this.compaction.segmentsChanged()
      this.config.cleaner.unregister(this)
    } else if (!compacted && compacts(next.cleanupPolicy)) this.config.cleaner.register(this)
  }

  /** Opens (creating or recovering) the log stored in `dir`. */
  static async open(dir: string, config: PartitionLogConfig = {}): Promise<PartitionLog> {
    const resolved = path.resolve(dir)
    const log = new PartitionLog(resolved, resolvePartitionLogConfig(config), new LogCheckpoints(resolved))
    if (log.unsyncedLeftovers !== null) {
      try {
        await settleLoadedDirectory(resolved, log.unsyncedLeftovers)
      } catch (cause) {
        await log.close().catch(() => undefined)
        throw new StorageError('KAFKA_STORAGE_ERROR', `fsync of the log directory ${resolved} failed`, { cause })
      }
      log.unsyncedLeftovers = null
    }
    return log
  }

  // OFFSETS

  get logStartOffset(): number {
    return this.currentLogStartOffset
  }

  get logEndOffset(): number {
    return this.local.logEndOffset
  }

  get highWatermark(): number {
    return this.currentHighWatermark
  }

  get lastStableOffset(): number {
    return this.producerState.lastStableOffset(this.currentHighWatermark, this.currentLogStartOffset)
  }

  get durableEndOffset(): number {
    return this.local.commit.durableEndOffset
  }

  // APPENDS

  async appendAsLeader(records: readonly RecordInput[], options: AppendAsLeaderOptions): Promise<AppendResult> {
    this.ensureWritable()
    if (!Array.isArray(records) || records.length === 0) throw new StorageError('VALIDATION_FAILED', 'appendAsLeader needs at least one record')
    const leaderEpoch = this.checkLeaderEpoch(options.leaderEpoch)
    const producerId = requireInteger('producerId', options.producerId ?? NO_PRODUCER_ID, -1)
    const transactional = options.transactional ?? false
    let producerEpoch = NO_PRODUCER_EPOCH
    let baseSequence = -1
    if (producerId >= 0) {
      producerEpoch = requireInteger('producerEpoch', options.producerEpoch, 0, INT16_MAX)
      baseSequence = requireInteger('baseSequence', options.baseSequence, 0, INT32_MAX)
      const lastSequence = incrementSequence(baseSequence, records.length - 1)
      const duplicate = this.producerState.findDuplicate(producerId, producerEpoch, baseSequence, lastSequence)
      if (duplicate) {
        // The original may still be waiting for its fsync: answer the retry only once it is durable.
        await this.flush()
        return { ...duplicate, duplicate: true }
      }
      this.producerState.checkClientBatch({ producerId, producerEpoch, baseSequence, isTransactional: transactional, baseOffset: this.logEndOffset })
    } else if (transactional) {
      throw new StorageError('VALIDATION_FAILED', 'a transactional batch needs a producerId')
    }

    const bytes = encodeBatch(
      { baseOffset: this.logEndOffset, partitionLeaderEpoch: leaderEpoch, producerId, producerEpoch, baseSequence, isTransactional: transactional, timestamp: this.config.now(), records },
      crc32c,
      (size) => this.scratchOf(size),
    )
    if (bytes.length > this.config.maxMessageBytes) {
      throw new StorageError('RECORD_TOO_LARGE', `batch of ${bytes.length} bytes exceeds maxMessageBytes ${this.config.maxMessageBytes}`)
    }
    const header = readBatchHeader(viewOf(bytes))
    this.writeBatches([{ header, bytes }])
    await this.local.commit.awaitDurable(header.lastOffset)
    return { baseOffset: header.baseOffset, lastOffset: header.lastOffset, duplicate: false }
  }

  async appendControl(type: ControlType, options: AppendControlOptions): Promise<AppendResult> {
    this.ensureWritable()
    const leaderEpoch = this.checkLeaderEpoch(options.leaderEpoch)
    const baseOffset = this.logEndOffset
    const batch = controlBatch(type, options, { baseOffset, leaderEpoch, timestamp: this.config.now(), checkMarker: this.checkMarker })
    this.writeBatches([batch])
    await this.local.commit.awaitDurable(baseOffset)
    return { baseOffset, lastOffset: baseOffset, duplicate: false }
  }

  async appendAsFollower(records: Uint8Array, options: AppendAsFollowerOptions = {}): Promise<FollowerAppendResult> {
    this.ensureWritable()
    if (!(records instanceof Uint8Array)) throw new StorageError('VALIDATION_FAILED', 'appendAsFollower takes the raw batch bytes')
    if (records.length === 0) return { firstOffset: this.logEndOffset, lastOffset: this.logEndOffset - 1, batchCount: 0, lastBatchEpoch: -1 }
    const prepared = followerBatches(records, { logEndOffset: this.logEndOffset, latestEpoch: this.epochCache.latestEpoch(), allowOffsetGaps: options.allowOffsetGaps ?? false })
    this.writeBatches(prepared)
    const last = prepared.at(-1)!.header
    await this.local.commit.awaitDurable(last.lastOffset)
    return { firstOffset: prepared[0]!.header.baseOffset, lastOffset: last.lastOffset, batchCount: prepared.length, lastBatchEpoch: last.partitionLeaderEpoch }
  }

  private scratchOf(size: number): Uint8Array {
    if (this.scratch.length < size) this.scratch = Buffer.allocUnsafe(Math.max(size, this.scratch.length * 2, 64 * 1024))
    return this.scratch.subarray(0, size)
  }

  private checkLeaderEpoch(value: unknown): number {
    const leaderEpoch = requireInteger('leaderEpoch', value, 0, INT32_MAX)
    const latest = this.epochCache.latestEpoch()
    if (leaderEpoch < latest) throw new StorageError('FENCED_LEADER_EPOCH', `leader epoch ${leaderEpoch} is older than the log's latest epoch ${latest}`)
    return leaderEpoch
  }

  /** Writes validated batches (rolling segments as needed) and applies them to epochs, producer state and aborted indexes. */
  private writeBatches(batches: PreparedBatch[]): void {
    this.local.writeBatches(batches, this.writeHooks, this.failWith)
  }

  // Made once, not per append: a failover appends 11,000 control batches, each had three new closures.
  private readonly writeHooks = {
    onBatchWritten: (segment: LogSegment, batch: PreparedBatch) => this.applyWrittenBatch(segment, batch),
    roll: (baseOffset: number) => this.roll(baseOffset),
  }
  private readonly failWith = (error: StorageError) => this.fail(error)
  private readonly checkMarker = (producerId: number, producerEpoch: number, coordinatorEpoch: number) => this.producerState.checkMarker(producerId, producerEpoch, coordinatorEpoch)

  private applyWrittenBatch(segment: LogSegment, batch: PreparedBatch): void {
    applyBatch({ epochCache: this.epochCache, producerState: this.producerState, highWatermark: this.currentHighWatermark }, segment, batch.header, batch.control, true)
  }

  /** Seals the active segment (fsync, index files), snapshots producer state at the new base, starts the next segment. */
  private roll(baseOffset: number): void {
    const old = this.local.active
    try {
      this.local.sealActiveSegment()
      writeProducerSnapshot(this.dir, this.producerState.snapshot(baseOffset))
      this.writeEpochCheckpoint()
      this.local.startSegment(baseOffset)
    } catch (cause) {
      throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `rolling segment ${old.baseOffset} failed`, { cause }))
    }
  }

  // DURABILITY

  /** Resolves when everything written so far is durable. */
  async flush(): Promise<void> {
    await this.local.commit.flush()
  }

  /** Puts the log in the failed state (Kafka takes the log dir offline): pending and future writes reject. */
  private fail(error: StorageError): StorageError {
    return this.local.commit.fail(error)
  }

  private ensureOpen(): void {
    if (this.closed) throw new StorageError('LOG_CLOSED', `log ${this.dir} is closed`)
  }

  private ensureWritable(): void {
    this.ensureOpen()
    const failure = this.local.commit.failed
    if (failure) throw failure
  }

  // READS

  async read(fetchOffset: number, maxBytes: number, options: ReadOptions = {}): Promise<ReadResult> {
    this.ensureOpen()
    requireInteger('fetchOffset', fetchOffset, 0)
    requireInteger('maxBytes', maxBytes, 0)
    const isolation = options.isolation ?? 'read_uncommitted'
    if (fetchOffset < this.currentLogStartOffset || fetchOffset > this.logEndOffset) {
      throw new StorageError('OFFSET_OUT_OF_RANGE', `fetch offset ${fetchOffset} is outside [${this.currentLogStartOffset}, ${this.logEndOffset}]`)
    }
    const defaultBound = isolation === 'read_committed' ? this.lastStableOffset : this.currentHighWatermark
    const bound = options.maxOffset === undefined ? defaultBound : Math.min(requireInteger('maxOffset', options.maxOffset, 0), this.logEndOffset)
    const read = this.local.read(fetchOffset, maxBytes, bound, options.into)
    let abortedTransactions: ReadResult['abortedTransactions'] = []
    if (isolation === 'read_committed' && read.lastOffset !== null) {
      const upperBound = read.lastOffset + 1
      abortedTransactions = this.abortedTransactions(fetchOffset, upperBound)
        .map(({ producerId, firstOffset }) => ({ producerId, firstOffset }))
        .sort((a, b) => a.firstOffset - b.firstOffset)
    }
    return {
      records: read.records,
      get batches() {
        return read.batches
      },
      lastOffset: read.lastOffset,
      highWatermark: this.currentHighWatermark,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.currentLogStartOffset,
      logEndOffset: this.logEndOffset,
      abortedTransactions,
    }
  }

  /** The header of the batch holding `offset` (below `bound`), without reading its records: a fetch's next timestamp. */
  batchHeaderAt(offset: number, bound: number): BatchHeader | null {
    this.ensureOpen()
    if (offset < this.currentLogStartOffset) return null
    return this.local.headerAt(offset, Math.min(bound, this.logEndOffset))
  }

  async offsetForTimestamp(timestamp: number): Promise<TimestampOffset | null> {
    this.ensureOpen()
    requireInteger('timestamp', timestamp, Number.MIN_SAFE_INTEGER)
    return this.local.offsetForTimestamp(timestamp, this.currentLogStartOffset)
  }

  // HIGH WATERMARK

  updateHighWatermark(offset: number): number {
    this.ensureOpen()
    requireInteger('highWatermark', offset, 0)
    const bounded = Math.min(Math.max(offset, this.currentLogStartOffset), this.logEndOffset)
    this.currentHighWatermark = bounded
    this.producerState.onHighWatermarkUpdated(bounded)
    this.maybeCheckpointHighWatermarkInBackground()
    return bounded
  }

  private maybeCheckpointHighWatermarkInBackground(): void {
    const interval = this.config.highWatermarkCheckpointIntervalMs
    if (interval === null || this.highWatermarkCheckpointInFlight || this.currentHighWatermark === this.checkpointedHighWatermark) return
    const now = this.config.now()
    if (now - this.lastHighWatermarkCheckpointAt < interval) return
    this.lastHighWatermarkCheckpointAt = now
    void this.checkpointHighWatermark().catch(() => {
      // A lost checkpoint only means a lower HW after a crash, which the replication layer re-establishes.
    })
  }

  /** Persists the high watermark now (tmp file, fsync, rename). */
  async checkpointHighWatermark(): Promise<void> {
    this.ensureOpen()
    while (this.highWatermarkCheckpointInFlight) await this.highWatermarkCheckpointInFlight
    const value = this.currentHighWatermark
    if (value === this.checkpointedHighWatermark) return
    const write = this.checkpoints.writeHighWatermarkAsync(value).then(() => {
      this.checkpointedHighWatermark = value
    })
    this.highWatermarkCheckpointInFlight = write.finally(() => {
      this.highWatermarkCheckpointInFlight = undefined
    })
    await this.highWatermarkCheckpointInFlight
  }

  // EPOCHS

  latestEpoch(): number {
    return this.epochCache.latestEpoch()
  }

  epochEntries(): EpochEntry[] {
    return this.epochCache.entries()
  }

  endOffsetForEpoch(epoch: number): EpochEndOffset {
    requireInteger('leaderEpoch', epoch, -1, INT32_MAX)
    return this.epochCache.endOffsetFor(epoch, this.logEndOffset)
  }

  epochForOffset(offset: number): number {
    return this.epochCache.epochForOffset(offset)
  }

  private writeEpochCheckpoint(): void {
    this.checkpoints.writeEpochs(this.epochCache.entries())
  }

  // PRODUCER STATE

  fileSnapshot(): LogFileSnapshot {
    this.ensureOpen()
    const all = this.local.segments.all()
    const active = this.local.active
    return {
      dir: this.dir,
      logStartOffset: this.logStartOffset,
      logEndOffset: this.logEndOffset,
      highWatermark: this.highWatermark,
      segments: all.map((segment, index) => ({ baseOffset: segment.baseOffset, bytes: segment.size, active: index === all.length - 1 })),
      // Copies: the state in memory moves on with the next append.
      closeState: {
        activeIndexes: active.sealedIndexBytes(),
        producerState: this.producerState.snapshot(this.logEndOffset),
        epochs: this.epochCache.entries().map((entry) => ({ ...entry })),
        logStartOffset: this.logStartOffset,
        cleanShutdown: { logEndOffset: this.logEndOffset, activeBaseOffset: active.baseOffset, activeSize: active.size },
      },
    }
  }

  openTransactions(): OpenTransaction[] {
    return this.producerState.openTransactions()
  }

  producerStates(): ProducerStateView[] {
    return this.producerState.entries().map((e) => ({
      producerId: e.producerId,
      producerEpoch: e.producerEpoch,
      coordinatorEpoch: e.coordinatorEpoch,
      lastSequence: e.batches.at(-1)?.lastSeq ?? -1,
      lastOffset: e.batches.at(-1)?.lastOffset ?? -1,
      lastTimestamp: e.lastTimestamp,
      currentTxnFirstOffset: e.currentTxnFirstOffset,
    }))
  }

  /** Aborted transactions with a marker at or after `fromOffset` and data before `toOffset`, in marker order. */
  abortedTransactions(fromOffset: number, toOffset: number): AbortedTransaction[] {
    const out: AbortedTransaction[] = []
    const segments = this.local.segments
    for (let i = segments.indexFor(fromOffset); i < segments.count; i++) {
      out.push(...collectAbortedTransactions(segments.at(i).aborted, fromOffset, toOffset))
    }
    return out
  }

  // TRUNCATION AND DELETION

  async truncateTo(offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    this.ensureWritable()
    requireInteger('offset', offset, 0)
    const oldEnd = this.logEndOffset
    if (offset >= oldEnd) return { removedRecords: 0, logEndOffset: oldEnd }
    if (offset < this.local.segments.first.baseOffset) {
      const { removedRecords } = await this.truncateFullyAndStartAt(offset)
      return { removedRecords, logEndOffset: offset }
    }
    this.compaction.segmentsChanged()
    try {
      const newEnd = this.local.truncateTo(offset)
      deleteProducerSnapshots(this.dir, (o) => o > newEnd)
      if (this.epochCache.truncateFromEnd(newEnd)) this.writeEpochCheckpoint()
      if (newEnd < this.currentLogStartOffset) {
        this.currentLogStartOffset = newEnd
        this.checkpoints.writeLogStartOffset(newEnd)
      }
      this.currentHighWatermark = Math.min(this.currentHighWatermark, newEnd)
      this.producerState = rebuildProducerState(this.dir, this.local.segments, this.epochCache, this.currentHighWatermark, newEnd)
      this.compaction.truncatedTo(newEnd)
      return { removedRecords: oldEnd - newEnd, logEndOffset: newEnd }
    } catch (cause) {
      if (cause instanceof StorageError && cause.code !== 'CORRUPT_RECORD') throw cause
      throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `truncating ${this.dir} to ${offset} failed`, { cause }))
    }
  }

  async truncateFullyAndStartAt(offset: number): Promise<{ removedRecords: number }> {
    this.ensureWritable()
    requireInteger('offset', offset, 0)
    const removedRecords = this.logEndOffset - this.currentLogStartOffset
    // Already empty at `offset` (every new mirror partition, on each replica): the files say what the emptied
    // log would, and rewriting them cost six fsyncs a replica, 180,000 for a 10,000-partition RF 3 mirror.
    if (this.isEmptyAt(offset)) return { removedRecords: 0 }
    this.compaction.segmentsChanged()
    try {
      deleteProducerSnapshots(this.dir, () => true)
      this.local.deleteAllAndStartAt(offset)
      this.currentLogStartOffset = offset
      this.checkpoints.writeLogStartOffset(offset)
      this.epochCache.clear()
      this.writeEpochCheckpoint()
      this.currentHighWatermark = offset
      this.producerState = new ProducerStateManager()
      this.compaction.emptiedAt(offset)
      return { removedRecords }
    } catch (cause) {
      throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `emptying ${this.dir} failed`, { cause }))
    }
  }

  /** One empty segment at `offset`, nothing in the epoch cache or producer state: what emptying at `offset` leaves. */
  private isEmptyAt(offset: number): boolean {
    const segments = this.local.segments
    return (
      this.currentLogStartOffset === offset &&
      this.currentHighWatermark === offset &&
      segments.count === 1 &&
      segments.active.baseOffset === offset &&
      segments.active.size === 0 &&
      this.epochCache.entries().length === 0 &&
      this.producerState.entries().length === 0
    )
  }

  async deleteRecordsBefore(offset: number): Promise<number> {
    this.ensureWritable()
    requireInteger('offset', offset, 0)
    if (offset > this.currentHighWatermark) {
      throw new StorageError('OFFSET_OUT_OF_RANGE', `cannot delete records before ${offset}: the high watermark is ${this.currentHighWatermark}`)
    }
    if (offset <= this.currentLogStartOffset) return this.currentLogStartOffset
    this.advanceLogStartOffset(offset)
    return this.currentLogStartOffset
  }

  async applyRetention(): Promise<RetentionResult> {
    this.ensureWritable()
    const cut = retentionCut(this.local.segments, this.currentHighWatermark, this.config, this.config.now())
    if (cut === null) return { deletedSegments: 0, logStartOffset: this.currentLogStartOffset }
    const before = this.local.segments.count
    this.advanceLogStartOffset(cut)
    return { deletedSegments: before - this.local.segments.count, logStartOffset: this.currentLogStartOffset }
  }

  /** Moves the log start offset forward (checkpoint first, so a crash never resurrects deleted records) and deletes whole segments below it. */
  private advanceLogStartOffset(offset: number): void {
    this.compaction.segmentsChanged()
    try {
      this.checkpoints.writeLogStartOffset(offset)
      this.currentLogStartOffset = offset
      this.compaction.logStartAdvanced(offset)
      this.currentHighWatermark = Math.max(this.currentHighWatermark, offset)
      if (this.epochCache.truncateFromStart(offset)) this.writeEpochCheckpoint()
      const firstKept = this.local.deleteSegmentsBelow(offset)
      if (firstKept !== undefined) deleteProducerSnapshots(this.dir, (o) => o < firstKept)
    } catch (cause) {
      throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `advancing the log start offset of ${this.dir} failed`, { cause }))
    }
  }

  // COMPACTION

  cleanerState(): { dirtyRatio: number; minCleanableDirtyRatio: number; deleteHorizonDue: boolean } {
    return this.compaction.state()
  }

  compact(): Promise<CleanOutcome> {
    this.ensureWritable()
    return this.compaction.compact()
  }

  // SHUTDOWN

  /** Waits for pending appends, persists indexes, producer snapshot and checkpoints, then marks a clean shutdown. */
  async close(): Promise<void> {
    if (this.closed) return
    if (!this.local.commit.failed) {
      try {
        await this.flush()
      } catch {
        // The failure is recorded; close what we can below.
      }
    }
    while (this.highWatermarkCheckpointInFlight) await this.highWatermarkCheckpointInFlight.catch(() => undefined)
    // A pass in flight gives up at its next slice and removes its files before the segments are released.
    this.compaction.segmentsChanged()
    this.config.cleaner.unregister(this)
    await this.compaction.passEnded()
    this.closed = true
    try {
      if (!this.local.commit.failed) {
        const active = this.local.active
        // One batch of durable writes (one directory fsync), the marker alone after it: it vouches for them all.
        const files = await this.local.sealActiveSegmentForClose()
        files.push(producerSnapshotFile(this.dir, this.producerState.snapshot(this.logEndOffset)), this.checkpoints.epochsFile(this.epochCache.entries()))
        const ownCheckpoint = this.config.highWatermarkCheckpointIntervalMs !== null
        if (ownCheckpoint && this.currentHighWatermark !== this.checkpointedHighWatermark) files.push(this.checkpoints.highWatermarkFile(this.currentHighWatermark))
        await writeFilesDurablyAsync(files)
        await writeFilesDurablyAsync([this.checkpoints.cleanShutdownFile({ logEndOffset: this.logEndOffset, activeBaseOffset: active.baseOffset, activeSize: active.size })])
      }
    } finally {
      this.local.closeWriters()
    }
  }

  async closeForDeletion(): Promise<void> {
    if (this.closed) return
    // Appends already taken are acknowledged only once durable: the group commit in flight finishes first.
    if (!this.local.commit.failed) await this.flush().catch(() => undefined)
    while (this.highWatermarkCheckpointInFlight) await this.highWatermarkCheckpointInFlight.catch(() => undefined)
    this.compaction.segmentsChanged()
    this.config.cleaner.unregister(this)
    await this.compaction.passEnded()
    this.closed = true
    this.local.closeWriters()
  }

  // DESCRIPTORS

  releaseDescriptor(): boolean {
    // Only with everything written already fdatasync'ed: a pending flush needs this descriptor.
    return !this.closed && this.local.releaseDescriptor()
  }
}
