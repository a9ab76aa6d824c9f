import 'server-only'
import fs from 'node:fs'
import path from 'node:path'
import { StorageError } from '@/lib/log/errors'
import {
  formatEpochCheckpoint,
  formatOffsetCheckpoint,
  LeaderEpochCache,
  parseEpochCheckpoint,
  parseOffsetCheckpoint,
} from '@/lib/log/leader-epoch-cache'
import { ProducerStateManager } from '@/lib/log/producer-state'
import {
  BATCH_HEADER_SIZE,
  CONTROL_TYPE_IDS,
  decodeBatchRecords,
  encodeBatch,
  encodeControlBatch,
  endTxnMarkerValue,
  incrementSequence,
  mirrorPidResetValue,
  readBatchHeader,
  readControlInfo,
  splitBatches,
  viewOf,
} from '@/lib/log/record-batch'
import { collectAbortedTransactions } from '@/lib/log/segment-index'
import type { AbortedTransaction, BatchHeader, ControlInfo, ControlType, EpochEndOffset, EpochEntry, OpenTransaction, RecordInput } from '@/lib/log/types'
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from '@/lib/log/types'
import { crc32c } from './crc32c'
import { fsyncDirectory, readFileIfExists, unlinkIfExists, writeFileDurably, writeFileDurablyAsync } from './fs-utils'
import { deleteProducerSnapshots, latestProducerSnapshot, readProducerSnapshot, writeProducerSnapshot } from './producer-snapshots'
import { processDescriptorBudget, type DescriptorHolder } from './descriptor-budget'
import { LOG_SUFFIX, LogSegment, parseOffsetFileName } from './segment'
import type {
  AppendAsFollowerOptions,
  AppendAsLeaderOptions,
  AppendControlOptions,
  AppendResult,
  FollowerAppendResult,
  PartitionLogApi,
  PartitionLogConfig,
  ProducerStateView,
  ReadOptions,
  ReadResult,
  RetentionResult,
  StoredBatch,
  TimestampOffset,
} from './types'

const DAY_MS = 24 * 60 * 60 * 1000
const INT32_MAX = 2147483647
const INT16_MAX = 32767

const DEFAULT_CONFIG: Required<Omit<PartitionLogConfig, 'now' | 'descriptorBudget'>> = {
  segmentBytes: 64 * 1024 * 1024,
  segmentMs: 7 * DAY_MS,
  indexIntervalBytes: 4096,
  retentionBytes: -1,
  retentionMs: 7 * DAY_MS,
  maxMessageBytes: 1048588,
  highWatermarkCheckpointIntervalMs: 5000,
}

type ResolvedConfig = Required<PartitionLogConfig>

export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint'
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint'
export const HIGH_WATERMARK_CHECKPOINT_FILE = 'high-watermark-checkpoint'
export const CLEAN_SHUTDOWN_FILE = 'clean-shutdown'

interface DurabilityWaiter {
  seq: number
  /** Last offset the waiter's append wrote; -1 for plain flush() calls, which truncation never rejects. */
  lastOffset: number
  resolve: () => void
  reject: (error: Error) => void
}

interface PreparedBatch {
  header: BatchHeader
  bytes: Uint8Array
  control?: ControlInfo
}

interface CleanShutdownMarker {
  logEndOffset: number
  activeBaseOffset: number
  activeSize: number
}

function requireInteger(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new StorageError('VALIDATION_FAILED', `${name} must be an integer in [${min}, ${max}], got ${String(value)}`)
  }
  return value
}

/** The run's bytes as one view when they are adjacent in one buffer (a fetched chunk), else a copy. */
function contiguousBytes(run: PreparedBatch[]): Uint8Array {
  const first = run[0]!.bytes
  if (run.length === 1) return first
  let end = first.byteOffset + first.byteLength
  for (let i = 1; i < run.length; i++) {
    const bytes = run[i]!.bytes
    if (bytes.buffer !== first.buffer || bytes.byteOffset !== end) return Buffer.concat(run.map((b) => b.bytes))
    end += bytes.byteLength
  }
  return new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset)
}

function resolveConfig(config: PartitionLogConfig): ResolvedConfig {
  const resolved: ResolvedConfig = { ...DEFAULT_CONFIG, now: Date.now, descriptorBudget: processDescriptorBudget, ...config }
  requireInteger('segmentBytes', resolved.segmentBytes, BATCH_HEADER_SIZE, INT32_MAX)
  requireInteger('indexIntervalBytes', resolved.indexIntervalBytes, 0, INT32_MAX)
  requireInteger('maxMessageBytes', resolved.maxMessageBytes, BATCH_HEADER_SIZE)
  return resolved
}

/**
 * The durable log of one partition replica: Kafka segment files, leader-epoch cache, producer state.
 * Contract and semantics: `types.ts` (PartitionLogApi) and README.md.
 *
 * All file I/O except the group-commit fdatasync is synchronous, so each method runs to completion without
 * interleaving: state in memory always matches the bytes in the page cache. Appends resolve once an fdatasync
 * that started after their write has completed.
 */
export class PartitionLog implements PartitionLogApi, DescriptorHolder {
  private segments: LogSegment[] = []
  private epochCache = new LeaderEpochCache()
  private producerState = new ProducerStateManager()
  private currentLogStartOffset = 0
  private currentHighWatermark = 0
  private currentDurableEndOffset = 0

  private writeSeq = 0
  private durableSeq = 0
  private waiters: DurabilityWaiter[] = []
  private flushing = false
  private flushScheduled = false
  private fdsToClose: number[] = []
  private truncationGeneration = 0
  private failure: StorageError | undefined
  private closed = false

  /** Reused for encoding leader batches: they are written synchronously and never referenced afterwards. */
  private scratch = Buffer.allocUnsafe(0)

  private lastHighWatermarkCheckpointAt = 0
  private checkpointedHighWatermark = -1
  private highWatermarkCheckpointInFlight: Promise<void> | undefined

  private constructor(
    readonly dir: string,
    private readonly config: ResolvedConfig,
  ) {}

  /** Opens (creating or recovering) the log stored in `dir`. */
  static async open(dir: string, config: PartitionLogConfig = {}): Promise<PartitionLog> {
    const log = new PartitionLog(path.resolve(dir), resolveConfig(config))
    log.load()
    return log
  }

  // OFFSETS

  get logStartOffset(): number {
    return this.currentLogStartOffset
  }

  get logEndOffset(): number {
    return this.active.nextOffset
  }

  get highWatermark(): number {
    return this.currentHighWatermark
  }

  get lastStableOffset(): number {
    return this.producerState.lastStableOffset(this.currentHighWatermark, this.currentLogStartOffset)
  }

  get durableEndOffset(): number {
    return this.currentDurableEndOffset
  }

  private get active(): LogSegment {
    return this.segments.at(-1)!
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
    await this.awaitDurable(header.lastOffset)
    return { baseOffset: header.baseOffset, lastOffset: header.lastOffset, duplicate: false }
  }

  async appendControl(type: ControlType, options: AppendControlOptions): Promise<AppendResult> {
    this.ensureWritable()
    const leaderEpoch = this.checkLeaderEpoch(options.leaderEpoch)
    const typeId = CONTROL_TYPE_IDS[type]
    if (typeId === undefined) throw new StorageError('VALIDATION_FAILED', `unknown control type ${String(type)}`)
    let bytes: Uint8Array
    let control: ControlInfo
    const baseOffset = this.logEndOffset
    const timestamp = this.config.now()
    if (type === 'MIRROR_PID_RESET') {
      control = { typeId, type }
      bytes = encodeControlBatch(
        { baseOffset, partitionLeaderEpoch: leaderEpoch, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH, isTransactional: false, timestamp, typeId, value: mirrorPidResetValue() },
        crc32c,
      )
    } else {
      const producerId = requireInteger('producerId', options.producerId, 0)
      const producerEpoch = requireInteger('producerEpoch', options.producerEpoch, 0, INT16_MAX)
      const coordinatorEpoch = requireInteger('coordinatorEpoch', options.coordinatorEpoch ?? 0, 0, INT32_MAX)
      this.producerState.checkMarker(producerId, producerEpoch, coordinatorEpoch)
      control = { typeId, type, coordinatorEpoch }
      bytes = encodeControlBatch(
        { baseOffset, partitionLeaderEpoch: leaderEpoch, producerId, producerEpoch, isTransactional: true, timestamp, typeId, value: endTxnMarkerValue(coordinatorEpoch) },
        crc32c,
      )
    }
    const header = readBatchHeader(viewOf(bytes))
    this.writeBatches([{ header, bytes, control }])
    await this.awaitDurable(baseOffset)
    return { baseOffset, lastOffset: baseOffset, duplicate: false }
  }

  async appendAsFollower(records: Uint8Array, options: AppendAsFollowerOptions = {}): Promise<FollowerAppendResult> {
    this.ensureWritable()
    if (!(records instanceof Uint8Array)) throw new StorageError('VALIDATION_FAILED', 'appendAsFollower takes the raw batch bytes')
    if (records.length === 0) return { firstOffset: this.logEndOffset, lastOffset: this.logEndOffset - 1, batchCount: 0, lastBatchEpoch: -1 }
    const scanned = splitBatches(records, crc32c)
    const prepared: PreparedBatch[] = []
    let expected = this.logEndOffset
    let latestEpoch = this.epochCache.latestEpoch()
    for (const { header, position } of scanned) {
      const offsetOk = options.allowOffsetGaps ? header.baseOffset >= expected : header.baseOffset === expected
      if (!offsetOk) {
        throw new StorageError('INVALID_RECORD', `batch base offset ${header.baseOffset} does not continue the log (expected ${options.allowOffsetGaps ? 'at least ' : ''}${expected})`)
      }
      if (header.partitionLeaderEpoch >= 0 && header.partitionLeaderEpoch < latestEpoch) {
        throw new StorageError('INVALID_RECORD', `batch at offset ${header.baseOffset} has leader epoch ${header.partitionLeaderEpoch}, below the log's latest epoch ${latestEpoch}`)
      }
      latestEpoch = Math.max(latestEpoch, header.partitionLeaderEpoch)
      const bytes = records.subarray(position, position + header.sizeInBytes)
      let control: ControlInfo | undefined
      if (header.isControl) {
        try {
          control = readControlInfo(bytes, header)
        } catch (cause) {
          throw new StorageError('CORRUPT_RECORD', `control batch at offset ${header.baseOffset} cannot be decoded`, { cause })
        }
      }
      prepared.push({ header, bytes, control })
      expected = header.lastOffset + 1
    }
    this.writeBatches(prepared)
    const last = prepared.at(-1)!.header
    await this.awaitDurable(last.lastOffset)
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

  /** Writes validated batches (rolling segments as needed) and applies them to indexes, epochs and producer state. */
  private writeBatches(batches: PreparedBatch[]): void {
    let run: PreparedBatch[] = []
    let runBytes = 0
    const writeRun = () => {
      if (run.length === 0) return
      const segment = this.active
      let position = segment.size
      const bytes = contiguousBytes(run)
      try {
        this.useWriter()
        segment.append(bytes)
      } catch (cause) {
        throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `write to ${segment.logPath} failed`, { cause }))
      }
      for (const batch of run) {
        segment.onBatchAppended(batch.header, position, this.config.indexIntervalBytes)
        this.applyBatch(segment, batch.header, batch.control, true)
        position += batch.header.sizeInBytes
      }
      run = []
      runBytes = 0
    }
    for (const batch of batches) {
      const segment = this.active
      const projected = segment.size + runBytes
      const offsetOverflow = batch.header.lastOffset - segment.baseOffset > INT32_MAX
      const tooBig = projected + batch.header.sizeInBytes > this.config.segmentBytes
      const tooOld = runBytes === 0 && this.config.now() - segment.createdAtMs > this.config.segmentMs
      // An overflowing relative offset needs a new segment even when the active one is empty (offset gaps).
      if ((projected > 0 && (tooBig || tooOld)) || offsetOverflow) {
        writeRun()
        this.roll(batch.header.baseOffset)
      }
      run.push(batch)
      runBytes += batch.header.sizeInBytes
    }
    writeRun()
  }

  /** Applies a batch that is in the log to the epoch cache, producer state and the segment's aborted index. */
  private applyBatch(segment: LogSegment, header: BatchHeader, control: ControlInfo | undefined, collectAborted: boolean): void {
    if (header.partitionLeaderEpoch >= 0 && header.partitionLeaderEpoch > this.epochCache.latestEpoch()) {
      this.epochCache.assign(header.partitionLeaderEpoch, header.baseOffset)
    }
    if (header.producerId < 0 && !header.isControl) return
    const applied = this.producerState.apply({ ...header, control }, this.currentHighWatermark)
    if (collectAborted && applied.completed?.isAborted) {
      const { producerId, firstOffset, lastOffset } = applied.completed
      segment.aborted.push({ producerId, firstOffset, lastOffset, lastStableOffset: applied.lastStableOffset ?? lastOffset + 1 })
    }
  }

  /** Seals the active segment (fsync, index files, producer snapshot) and starts a new one at `baseOffset`. */
  private roll(baseOffset: number): void {
    const old = this.active
    try {
      if (old.fd !== undefined) fs.fdatasyncSync(old.fd)
      this.markDurable(this.writeSeq, this.logEndOffset)
      old.sealTimeIndex()
      old.writeIndexFiles()
      writeProducerSnapshot(this.dir, this.producerState.snapshot(baseOffset))
      this.writeEpochCheckpoint()
      const next = LogSegment.create(this.dir, baseOffset, this.config.now())
      fsyncDirectory(this.dir)
      this.retireFd(old.detachWriter())
      this.segments.push(next)
      this.config.descriptorBudget.touch(this)
    } catch (cause) {
      throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `rolling segment ${old.baseOffset} failed`, { cause }))
    }
  }

  // DURABILITY (group commit)

  private awaitDurable(lastOffset: number): Promise<void> {
    const seq = ++this.writeSeq
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq, lastOffset, resolve, reject })
      this.scheduleFlush()
    })
  }

  /**
   * Starts the next fdatasync at the end of the current synchronous section, so appends issued together share
   * it; while one runs, new appends wait for the next.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return
    this.flushScheduled = true
    queueMicrotask(() => {
      this.flushScheduled = false
      this.startFlush()
    })
  }

  private startFlush(): void {
    if (this.flushing || this.failure) return
    if (this.durableSeq >= this.writeSeq) {
      this.markDurable(this.durableSeq)
      return
    }
    const fd = this.active.fd
    if (fd === undefined) return
    const target = this.writeSeq
    const endOffset = this.logEndOffset
    const generation = this.truncationGeneration
    this.flushing = true
    fs.fdatasync(fd, (error) => {
      this.flushing = false
      this.closeRetiredFds()
      if (error) {
        this.fail(new StorageError('KAFKA_STORAGE_ERROR', `fdatasync of ${this.active.logPath} failed`, { cause: error }))
        return
      }
      this.markDurable(target, generation === this.truncationGeneration ? endOffset : undefined)
      if (this.waiters.length > 0) this.startFlush()
      else this.config.descriptorBudget.idle()
    })
  }

  private markDurable(seq: number, endOffset?: number): void {
    if (seq > this.durableSeq) this.durableSeq = seq
    if (endOffset !== undefined && endOffset > this.currentDurableEndOffset) this.currentDurableEndOffset = endOffset
    while (this.waiters.length > 0 && this.waiters[0]!.seq <= this.durableSeq) this.waiters.shift()!.resolve()
  }

  /** Resolves when everything written so far is durable. */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure
    if (this.durableSeq >= this.writeSeq) return
    await new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq: this.writeSeq, lastOffset: -1, resolve, reject })
      this.scheduleFlush()
    })
  }

  private retireFd(fd: number | undefined): void {
    if (fd === undefined) return
    this.fdsToClose.push(fd)
    if (!this.flushing) this.closeRetiredFds()
  }

  private closeRetiredFds(): void {
    for (const fd of this.fdsToClose.splice(0)) {
      try {
        fs.closeSync(fd)
      } catch {
        // Already closed by a failure path; nothing else to release.
      }
    }
  }

  /** Puts the log in the failed state (Kafka takes the log dir offline): pending and future writes reject. */
  private fail(error: StorageError): StorageError {
    this.failure ??= error
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure)
    return this.failure
  }

  private ensureOpen(): void {
    if (this.closed) throw new StorageError('LOG_CLOSED', `log ${this.dir} is closed`)
  }

  private ensureWritable(): void {
    this.ensureOpen()
    if (this.failure) throw this.failure
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

    const chunks: Buffer[] = []
    const found: Array<{ header: BatchHeader; chunk: number; start: number }> = []
    let total = 0
    let done = fetchOffset >= bound
    let segmentIndex = this.segmentIndexFor(fetchOffset)
    let firstSegment = true
    while (!done && segmentIndex < this.segments.length) {
      const segment = this.segments[segmentIndex]!
      segmentIndex++
      let position = 0
      let firstBatchSize: number | undefined
      if (firstSegment) {
        firstSegment = false
        const located = segment.findBatch(fetchOffset)
        if (!located) continue
        position = located.position
        firstBatchSize = located.header.sizeInBytes
      }
      if (position >= segment.size) continue
      let want = Math.min(segment.size - position, Math.max(maxBytes - total, 0))
      if (found.length === 0) {
        if (firstBatchSize === undefined) {
          const head = segment.read(position, Math.min(segment.size - position, BATCH_HEADER_SIZE))
          if (head.length < BATCH_HEADER_SIZE) break
          firstBatchSize = readBatchHeader(viewOf(head)).sizeInBytes
        }
        want = Math.max(want, firstBatchSize)
      }
      if (want <= 0) break
      const chunk = segment.read(position, want)
      const view = viewOf(chunk)
      let pos = 0
      let used = 0
      while (pos + BATCH_HEADER_SIZE <= chunk.length) {
        const header = readBatchHeader(view, pos)
        if (pos + header.sizeInBytes > chunk.length) {
          done = true
          break
        }
        if (header.lastOffset >= bound || (found.length > 0 && total + header.sizeInBytes > maxBytes)) {
          done = true
          break
        }
        found.push({ header, chunk: chunks.length, start: pos })
        total += header.sizeInBytes
        pos += header.sizeInBytes
        used = pos
      }
      if (pos + BATCH_HEADER_SIZE > chunk.length && pos < chunk.length) done = true
      if (used > 0) {
        chunks.push(used === chunk.length ? chunk : chunk.subarray(0, used))
        segment.rememberPosition(found.at(-1)!.header.lastOffset + 1, position + used)
      }
      if (used < segment.size - position) done = true
    }

    const records = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    const chunkStarts: number[] = []
    let offset = 0
    for (const chunk of chunks) {
      chunkStarts.push(offset)
      offset += chunk.length
    }
    const batches: StoredBatch[] = found.map(({ header, chunk, start }) => {
      const at = chunkStarts[chunk]! + start
      return { ...header, raw: records.subarray(at, at + header.sizeInBytes) }
    })
    let abortedTransactions: ReadResult['abortedTransactions'] = []
    if (isolation === 'read_committed' && batches.length > 0) {
      const upperBound = batches.at(-1)!.lastOffset + 1
      abortedTransactions = this.abortedTransactions(fetchOffset, upperBound)
        .map(({ producerId, firstOffset }) => ({ producerId, firstOffset }))
        .sort((a, b) => a.firstOffset - b.firstOffset)
    }
    return {
      records,
      batches,
      highWatermark: this.currentHighWatermark,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.currentLogStartOffset,
      logEndOffset: this.logEndOffset,
      abortedTransactions,
    }
  }

  /** Index of the segment holding `offset` (the last one whose base offset is ≤ it), or 0. */
  private segmentIndexFor(offset: number): number {
    let lo = 0
    let hi = this.segments.length - 1
    let found = 0
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.segments[mid]!.baseOffset <= offset) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found
  }

  async offsetForTimestamp(timestamp: number): Promise<TimestampOffset | null> {
    this.ensureOpen()
    requireInteger('timestamp', timestamp, Number.MIN_SAFE_INTEGER)
    for (const segment of this.segments) {
      if (segment.maxTimestamp < timestamp || segment.size === 0) continue
      const startOffset = Math.max(segment.timeIndex.lookup(timestamp), this.currentLogStartOffset)
      let result: TimestampOffset | null = null
      const outcome = segment.scan(segment.offsetIndex.lookup(startOffset), segment.size, { needsBytes: (h) => h.maxTimestamp >= timestamp }, (header, _position, bytes) => {
        if (header.maxTimestamp < timestamp || header.lastOffset < this.currentLogStartOffset || !bytes) return true
        if (header.compression !== 'none') {
          result = { offset: Math.max(header.baseOffset, this.currentLogStartOffset), timestamp: header.maxTimestamp, leaderEpoch: header.partitionLeaderEpoch }
          return false
        }
        for (const record of decodeBatchRecords(bytes, header)) {
          if (record.timestamp >= timestamp && record.offset >= this.currentLogStartOffset) {
            result = { offset: record.offset, timestamp: record.timestamp, leaderEpoch: header.partitionLeaderEpoch }
            return false
          }
        }
        return true
      })
      if (outcome.error) throw outcome.error
      if (result) return result
    }
    return null
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
    const now = this.config.now()
    if (this.highWatermarkCheckpointInFlight || this.currentHighWatermark === this.checkpointedHighWatermark) return
    if (now - this.lastHighWatermarkCheckpointAt < this.config.highWatermarkCheckpointIntervalMs) return
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
    const write = writeFileDurablyAsync(path.join(this.dir, HIGH_WATERMARK_CHECKPOINT_FILE), formatOffsetCheckpoint(value)).then(() => {
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
    writeFileDurably(path.join(this.dir, LEADER_EPOCH_CHECKPOINT_FILE), formatEpochCheckpoint(this.epochCache.entries()))
  }

  // PRODUCER STATE

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
    for (let i = this.segmentIndexFor(fromOffset); i < this.segments.length; i++) {
      out.push(...collectAbortedTransactions(this.segments[i]!.aborted, fromOffset, toOffset))
    }
    return out
  }

  // TRUNCATION AND DELETION

  async truncateTo(offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    this.ensureWritable()
    requireInteger('offset', offset, 0)
    const oldEnd = this.logEndOffset
    if (offset >= oldEnd) return { removedRecords: 0, logEndOffset: oldEnd }
    if (offset < this.segments[0]!.baseOffset) {
      const { removedRecords } = await this.truncateFullyAndStartAt(offset)
      return { removedRecords, logEndOffset: offset }
    }
    try {
      const index = this.segmentIndexFor(offset)
      const segment = this.segments[index]!
      const located = segment.findBatch(offset)
      const cutPosition = located ? located.position : segment.size
      const newEnd = located ? located.header.baseOffset : segment.nextOffset

      deleteProducerSnapshots(this.dir, (o) => o > newEnd)
      for (let i = this.segments.length - 1; i > index; i--) {
        const doomed = this.segments[i]!
        this.retireFd(doomed.detachWriter())
        doomed.deleteFiles()
      }
      fsyncDirectory(this.dir)
      this.segments.length = index + 1
      this.truncationGeneration++
      segment.openWriter()
      this.config.descriptorBudget.touch(this)
      segment.truncateToPosition(cutPosition)
      // The segment is active again: its index files no longer describe it and are rewritten on roll/close.
      segment.deleteIndexFiles()
      segment.reloadStatsByScan(this.config.indexIntervalBytes)
      segment.aborted = segment.aborted.filter((t) => t.lastOffset < newEnd)

      this.rejectWaitersFrom(newEnd)
      this.markDurable(this.writeSeq, newEnd)
      this.currentDurableEndOffset = newEnd

      if (this.epochCache.truncateFromEnd(newEnd)) this.writeEpochCheckpoint()
      if (newEnd < this.currentLogStartOffset) {
        this.currentLogStartOffset = newEnd
        writeFileDurably(path.join(this.dir, LOG_START_OFFSET_CHECKPOINT_FILE), formatOffsetCheckpoint(newEnd))
      }
      this.currentHighWatermark = Math.min(this.currentHighWatermark, newEnd)
      this.rebuildProducerState(newEnd)
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
    try {
      deleteProducerSnapshots(this.dir, () => true)
      for (let i = this.segments.length - 1; i >= 0; i--) {
        const doomed = this.segments[i]!
        this.retireFd(doomed.detachWriter())
        doomed.deleteFiles()
      }
      this.segments = [LogSegment.create(this.dir, offset, this.config.now())]
      this.config.descriptorBudget.touch(this)
      fsyncDirectory(this.dir)
      this.truncationGeneration++
      this.rejectWaitersFrom(-Infinity)
      this.markDurable(this.writeSeq)
      this.currentDurableEndOffset = offset
      this.currentLogStartOffset = offset
      writeFileDurably(path.join(this.dir, LOG_START_OFFSET_CHECKPOINT_FILE), formatOffsetCheckpoint(offset))
      this.epochCache.clear()
      this.writeEpochCheckpoint()
      this.currentHighWatermark = offset
      this.producerState = new ProducerStateManager()
      return { removedRecords }
    } catch (cause) {
      throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `emptying ${this.dir} failed`, { cause }))
    }
  }

  private rejectWaitersFrom(newEnd: number): void {
    const kept: DurabilityWaiter[] = []
    for (const waiter of this.waiters) {
      if (waiter.lastOffset >= 0 && waiter.lastOffset >= newEnd) waiter.reject(new StorageError('LOG_TRUNCATED', `offset ${waiter.lastOffset} was truncated before it became durable`))
      else kept.push(waiter)
    }
    this.waiters = kept
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
    const now = this.config.now()
    let totalSize = this.segments.reduce((sum, s) => sum + s.size, 0)
    let deletable = 0
    for (let i = 0; i < this.segments.length - 1; i++) {
      const segment = this.segments[i]!
      const next = this.segments[i + 1]!
      if (next.baseOffset > this.currentHighWatermark) break
      const expired = this.config.retentionMs >= 0 && now - segment.maxTimestamp > this.config.retentionMs
      const oversized = this.config.retentionBytes >= 0 && totalSize - segment.size >= this.config.retentionBytes
      if (!expired && !oversized) break
      totalSize -= segment.size
      deletable++
    }
    if (deletable === 0) return { deletedSegments: 0, logStartOffset: this.currentLogStartOffset }
    const before = this.segments.length
    this.advanceLogStartOffset(this.segments[deletable]!.baseOffset)
    return { deletedSegments: before - this.segments.length, logStartOffset: this.currentLogStartOffset }
  }

  /** Moves the log start offset forward (checkpoint first, so a crash never resurrects deleted records) and deletes whole segments below it. */
  private advanceLogStartOffset(offset: number): void {
    try {
      writeFileDurably(path.join(this.dir, LOG_START_OFFSET_CHECKPOINT_FILE), formatOffsetCheckpoint(offset))
      this.currentLogStartOffset = offset
      this.currentHighWatermark = Math.max(this.currentHighWatermark, offset)
      if (this.epochCache.truncateFromStart(offset)) this.writeEpochCheckpoint()
      let remove = 0
      while (remove < this.segments.length - 1 && this.segments[remove + 1]!.baseOffset <= offset) remove++
      if (remove > 0) {
        const firstKept = this.segments[remove]!.baseOffset
        for (const doomed of this.segments.slice(0, remove)) doomed.deleteFiles()
        this.segments.splice(0, remove)
        deleteProducerSnapshots(this.dir, (o) => o < firstKept)
        fsyncDirectory(this.dir)
      }
    } catch (cause) {
      throw this.fail(new StorageError('KAFKA_STORAGE_ERROR', `advancing the log start offset of ${this.dir} failed`, { cause }))
    }
  }

  // RECOVERY

  /** Replays [from, to) of the log into producer state (and, when asked, the epoch cache and aborted indexes). */
  private replay(from: number, to: number, collectAbortedFrom: number): void {
    for (const segment of this.segments) {
      if (segment.nextOffset <= from || segment.baseOffset >= to) continue
      const start = from > segment.baseOffset ? (segment.findBatch(from)?.position ?? segment.size) : 0
      const outcome = segment.scan(start, segment.size, { needsBytes: (h) => h.isControl }, (header, _position, bytes) => {
        if (header.baseOffset >= to) return false
        let control: ControlInfo | undefined
        if (header.isControl && bytes) {
          try {
            control = readControlInfo(bytes, header)
          } catch {
            control = { typeId: -1, type: 'CONTROL' }
          }
        }
        this.applyBatch(segment, header, control, header.baseOffset >= collectAbortedFrom)
        return true
      })
      if (outcome.error) throw outcome.error
    }
  }

  /** Producer state at `endOffset` from the newest snapshot at or below it plus a replay of the rest. */
  private rebuildProducerState(endOffset: number): void {
    const snapshot = latestProducerSnapshot(this.dir, endOffset)
    this.producerState = snapshot ? ProducerStateManager.fromSnapshot(snapshot) : new ProducerStateManager()
    const from = Math.max(snapshot?.offset ?? 0, this.segments[0]!.baseOffset)
    this.replay(from, endOffset, Number.POSITIVE_INFINITY)
  }

  private load(): void {
    if (!fs.existsSync(this.dir)) {
      fs.mkdirSync(this.dir, { recursive: true })
      fsyncDirectory(path.dirname(this.dir))
    }
    for (const name of fs.readdirSync(this.dir)) {
      if (name.endsWith('.tmp')) unlinkIfExists(path.join(this.dir, name))
    }
    const now = this.config.now()
    const bases = fs
      .readdirSync(this.dir)
      .map((name) => parseOffsetFileName(name, LOG_SUFFIX))
      .filter((o): o is number => o !== undefined)
      .sort((a, b) => a - b)
    const checkpointedLogStart = this.readOffsetCheckpoint(LOG_START_OFFSET_CHECKPOINT_FILE)
    const clean = this.readCleanShutdownMarker()

    if (bases.length === 0) {
      this.segments = [LogSegment.create(this.dir, checkpointedLogStart ?? 0, now)]
      fsyncDirectory(this.dir)
    } else {
      this.segments = bases.map((base) => {
        const segment = new LogSegment(this.dir, base, now)
        segment.size = fs.statSync(segment.logPath).size
        return segment
      })
    }

    let needFullReplay = false
    for (const segment of this.segments.slice(0, -1)) {
      const { indexesOk, txnIndexOk } = segment.loadIndexFiles()
      if (indexesOk) {
        this.findSegmentEnd(segment)
      } else {
        segment.reloadStatsByScan(this.config.indexIntervalBytes)
        segment.sealTimeIndex()
        if (txnIndexOk) segment.writeIndexFiles()
      }
      if (!txnIndexOk) needFullReplay = true
    }

    const active = this.active
    let trustedClean = false
    if (clean && clean.activeBaseOffset === active.baseOffset && clean.activeSize === active.size) {
      const { indexesOk, txnIndexOk } = active.loadIndexFiles()
      if (indexesOk && txnIndexOk) {
        this.findSegmentEnd(active)
        trustedClean = active.nextOffset === clean.logEndOffset
      }
    }
    if (!trustedClean) this.recoverActiveSegment(active)

    const logEnd = this.logEndOffset
    const firstBase = this.segments[0]!.baseOffset
    this.currentLogStartOffset = Math.min(Math.max(checkpointedLogStart ?? firstBase, firstBase), logEnd)
    let removeBelow = 0
    while (removeBelow < this.segments.length - 1 && this.segments[removeBelow + 1]!.baseOffset <= this.currentLogStartOffset) removeBelow++
    for (const doomed of this.segments.splice(0, removeBelow)) doomed.deleteFiles()

    try {
      const text = readFileIfExists(path.join(this.dir, LEADER_EPOCH_CHECKPOINT_FILE))
      this.epochCache = new LeaderEpochCache(text === undefined ? [] : parseEpochCheckpoint(text.toString('utf8')))
    } catch {
      this.epochCache = new LeaderEpochCache()
      needFullReplay = true
    }
    this.epochCache.truncateFromEnd(logEnd)
    this.epochCache.truncateFromStart(this.currentLogStartOffset)

    const checkpointedHighWatermark = this.readOffsetCheckpoint(HIGH_WATERMARK_CHECKPOINT_FILE) ?? 0
    this.currentHighWatermark = Math.min(Math.max(checkpointedHighWatermark, this.currentLogStartOffset), logEnd)
    this.checkpointedHighWatermark = checkpointedHighWatermark

    deleteProducerSnapshots(this.dir, (o) => o > logEnd)
    const cleanSnapshot = trustedClean && !needFullReplay ? readProducerSnapshot(this.dir, logEnd) : undefined
    if (cleanSnapshot) {
      this.producerState = ProducerStateManager.fromSnapshot(cleanSnapshot)
    } else {
      const firstKept = this.segments[0]!.baseOffset
      const snapshot = needFullReplay ? undefined : latestProducerSnapshot(this.dir, this.active.baseOffset)
      this.producerState = snapshot ? ProducerStateManager.fromSnapshot(snapshot) : new ProducerStateManager()
      if (needFullReplay) for (const segment of this.segments) segment.aborted = []
      const collectFrom = needFullReplay ? firstKept : trustedClean ? logEnd : this.active.baseOffset
      if (!trustedClean && !needFullReplay) this.active.aborted = []
      this.replay(Math.max(snapshot?.offset ?? firstKept, firstKept), logEnd, collectFrom)
      if (needFullReplay) for (const segment of this.segments.slice(0, -1)) segment.writeIndexFiles()
    }
    this.producerState.onHighWatermarkUpdated(this.currentHighWatermark)
    // Keep one snapshot per segment base (truncation and recovery start from those); others were for this open.
    const segmentBases = new Set(this.segments.map((s) => s.baseOffset))
    deleteProducerSnapshots(this.dir, (o) => !segmentBases.has(o))

    this.active.openWriter()
    this.config.descriptorBudget.touch(this)
    // Any later crash must recover by scanning again: the marker goes, durably, before the first new write.
    unlinkIfExists(path.join(this.dir, CLEAN_SHUTDOWN_FILE))
    fsyncDirectory(this.dir)
    this.currentDurableEndOffset = logEnd
  }

  /** Sets `nextOffset` of a segment whose indexes were loaded: scans the headers after the last index entry. */
  private findSegmentEnd(segment: LogSegment): void {
    const start = segment.offsetIndex.lookup(Number.MAX_SAFE_INTEGER)
    segment.nextOffset = segment.baseOffset
    let last: BatchHeader | undefined
    let lastPosition = 0
    const outcome = segment.scan(start, segment.size, {}, (header, position) => {
      last = header
      lastPosition = position
    })
    if (outcome.error) throw outcome.error
    if (last) {
      segment.nextOffset = last.lastOffset + 1
      segment.bytesSinceLastIndexEntry = lastPosition + last.sizeInBytes - start
    }
  }

  /**
   * Kafka's recovery of the tail: validate every batch (length, magic, CRC32C, offsets increasing from the
   * segment base) and cut the file at the first bad one; rebuild the in-memory indexes.
   */
  private recoverActiveSegment(segment: LogSegment): void {
    segment.resetStats()
    let expected = segment.baseOffset
    let validEnd = 0
    segment.scan(0, segment.size, { crc32c }, (header, position) => {
      if (header.baseOffset < expected) return false
      segment.onBatchAppended(header, position, this.config.indexIntervalBytes)
      expected = header.lastOffset + 1
      validEnd = position + header.sizeInBytes
      return true
    })
    if (validEnd < segment.size) segment.truncateToPosition(validEnd)
  }

  private readOffsetCheckpoint(name: string): number | undefined {
    const bytes = readFileIfExists(path.join(this.dir, name))
    if (bytes === undefined) return undefined
    try {
      return parseOffsetCheckpoint(bytes.toString('utf8'))
    } catch {
      return undefined
    }
  }

  private readCleanShutdownMarker(): CleanShutdownMarker | undefined {
    const bytes = readFileIfExists(path.join(this.dir, CLEAN_SHUTDOWN_FILE))
    if (bytes === undefined) return undefined
    try {
      const parsed = JSON.parse(bytes.toString('utf8')) as Partial<CleanShutdownMarker>
      if (typeof parsed.logEndOffset === 'number' && typeof parsed.activeBaseOffset === 'number' && typeof parsed.activeSize === 'number') {
        return { logEndOffset: parsed.logEndOffset, activeBaseOffset: parsed.activeBaseOffset, activeSize: parsed.activeSize }
      }
    } catch {
      // A torn marker means an unclean shutdown.
    }
    return undefined
  }

  // SHUTDOWN

  /** Waits for pending appends, persists indexes, producer snapshot and checkpoints, then marks a clean shutdown. */
  async close(): Promise<void> {
    if (this.closed) return
    if (!this.failure) {
      try {
        await this.flush()
      } catch {
        // The failure is recorded; close what we can below.
      }
    }
    while (this.highWatermarkCheckpointInFlight) await this.highWatermarkCheckpointInFlight.catch(() => undefined)
    this.closed = true
    try {
      if (!this.failure) {
        const active = this.active
        if (active.fd !== undefined) fs.fdatasyncSync(active.fd)
        active.sealTimeIndex()
        active.writeIndexFiles()
        writeProducerSnapshot(this.dir, this.producerState.snapshot(this.logEndOffset))
        this.writeEpochCheckpoint()
        writeFileDurably(path.join(this.dir, HIGH_WATERMARK_CHECKPOINT_FILE), formatOffsetCheckpoint(this.currentHighWatermark))
        const marker: CleanShutdownMarker = { logEndOffset: this.logEndOffset, activeBaseOffset: active.baseOffset, activeSize: active.size }
        writeFileDurably(path.join(this.dir, CLEAN_SHUTDOWN_FILE), JSON.stringify(marker))
      }
    } finally {
      for (const segment of this.segments) this.retireFd(segment.detachWriter())
      this.closeRetiredFds()
      this.config.descriptorBudget.forget(this)
    }
  }

  // DESCRIPTORS

  /** Reopens the active segment's descriptor if the budget took it, and marks this log recently written. */
  private useWriter(): void {
    this.active.openWriter()
    this.config.descriptorBudget.touch(this)
  }

  releaseDescriptor(): boolean {
    // Only with everything written already fdatasync'ed: a pending flush needs this descriptor.
    if (this.closed || this.failure || this.flushing || this.flushScheduled || this.waiters.length > 0 || this.durableSeq < this.writeSeq) return false
    if (this.active.fd === undefined) return true
    this.retireFd(this.active.detachWriter())
    return true
  }
}
