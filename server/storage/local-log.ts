import 'server-only'
import fs from 'node:fs'
import { promisify } from 'node:util'
import { StorageError } from '@/lib/log/errors'
import { BATCH_HEADER_SIZE, decodeBatchRecords, readBatchHeader, viewOf } from '@/lib/log/record-batch'
import type { BatchHeader, ControlInfo } from '@/lib/log/types'
import { fsyncDirectory, syncsSkipped, type DurableFileWrite } from '@/server/util/durable-file'
import type { DescriptorBudget, DescriptorHolder } from './descriptor-budget'
import { GroupCommit } from './group-commit'
import { LogSegments } from './log-segments'
import { LogSegment } from './segment'
import type { StoredBatch, TimestampOffset } from './types'

// Asynchronous, on the libuv pool: a close of many logs then syncs several at once instead of one after the other.
const fdatasync = promisify(fs.fdatasync)

const INT32_MAX = 2147483647

/** A validated batch about to be written: its header, exact bytes and, for control batches, the marker. */
export interface PreparedBatch {
  header: BatchHeader
  bytes: Uint8Array
  control?: ControlInfo
}

export interface LocalLogConfig {
  segmentBytes: number
  segmentMs: number
  indexIntervalBytes: number
  now: () => number
  descriptorBudget: DescriptorBudget
}

/** What a write needs from the log above: its state updates per batch and the roll (which snapshots producer state). */
export interface WriteHooks {
  onBatchWritten(segment: LogSegment, batch: PreparedBatch): void
  roll(baseOffset: number): void
}

/** The chunks as one view of `into` when each follows the one before in it (all read into it), else null. */
function adjacentIn(into: Buffer | undefined, chunks: readonly Buffer[]): Buffer | null {
  if (into === undefined) return null
  let end = into.byteOffset
  for (const chunk of chunks) {
    if (chunk.buffer !== into.buffer || chunk.byteOffset !== end) return null
    end += chunk.byteLength
  }
  return into.subarray(0, end - into.byteOffset)
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

/**
 * The local segments of one log (Kafka's LocalLog): the write path with its rolls, the chunked read path,
 * truncation and deletion of segment files, the active segment's descriptor and group commit. It knows bytes
 * and offsets, not producers or epochs (PartitionLog keeps those).
 */
export class LocalLog {
  readonly commit: GroupCommit

  constructor(
    readonly dir: string,
    readonly segments: LogSegments,
    private readonly config: LocalLogConfig,
    private readonly holder: DescriptorHolder,
    onFlushFailed: (error: StorageError) => void,
  ) {
    this.commit = new GroupCommit({
      activeFd: () => this.active.fd,
      activePath: () => this.active.logPath,
      logEndOffset: () => this.logEndOffset,
      onFlushFailed,
      onIdle: () => this.config.descriptorBudget.idle(),
    })
  }

  get active(): LogSegment {
    return this.segments.active
  }

  get logEndOffset(): number {
    return this.active.nextOffset
  }

  /** Reopens the active segment's descriptor if the budget took it, and marks this log recently written. */
  useWriter(): void {
    this.active.openWriter()
    this.config.descriptorBudget.touch(this.holder)
  }

  // WRITES

  /** Writes validated batches in runs, rolling segments as needed (Kafka's maybeRoll before each batch). */
  writeBatches(batches: readonly PreparedBatch[], hooks: WriteHooks, onWriteFailed: (error: StorageError) => StorageError): void {
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
        throw onWriteFailed(new StorageError('KAFKA_STORAGE_ERROR', `write to ${segment.logPath} failed`, { cause }))
      }
      for (const batch of run) {
        segment.onBatchAppended(batch.header, position, this.config.indexIntervalBytes)
        hooks.onBatchWritten(segment, batch)
        position += batch.header.sizeInBytes
      }
      run = []
      runBytes = 0
    }
    for (const batch of batches) {
      if (this.shouldRoll(batch.header, runBytes)) {
        writeRun()
        hooks.roll(batch.header.baseOffset)
      }
      run.push(batch)
      runBytes += batch.header.sizeInBytes
    }
    writeRun()
  }

  /** segment.bytes, segment.ms, and an offset that would overflow the segment's int32 relative offsets. */
  private shouldRoll(header: BatchHeader, pendingBytes: number): boolean {
    const segment = this.active
    const projected = segment.size + pendingBytes
    const offsetOverflow = header.lastOffset - segment.baseOffset > INT32_MAX
    const tooBig = projected + header.sizeInBytes > this.config.segmentBytes
    const tooOld = pendingBytes === 0 && this.config.now() - segment.createdAtMs > this.config.segmentMs
    // An overflowing relative offset needs a new segment even when the active one is empty (offset gaps).
    return (projected > 0 && (tooBig || tooOld)) || offsetOverflow
  }

  /** First half of a roll: the active segment is made durable and its index files written. */
  sealActiveSegment(): void {
    const old = this.active
    if (old.fd !== undefined && !syncsSkipped(this.dir)) fs.fdatasyncSync(old.fd)
    this.commit.markAllDurable(this.logEndOffset)
    old.sealTimeIndex()
    old.writeIndexFiles()
  }

  /** sealActiveSegment for a close: the data synced without blocking, the index files returned for the close's batch. */
  async sealActiveSegmentForClose(): Promise<DurableFileWrite[]> {
    const old = this.active
    if (old.fd !== undefined && !syncsSkipped(this.dir)) await fdatasync(old.fd)
    this.commit.markAllDurable(this.logEndOffset)
    old.sealTimeIndex()
    return old.indexFiles()
  }

  /** Second half of a roll: a new, empty active segment at `baseOffset`, durable in the directory. */
  startSegment(baseOffset: number): void {
    const old = this.active
    const next = LogSegment.create(this.dir, baseOffset, this.config.now())
    fsyncDirectory(this.dir)
    this.commit.retireFd(old.detachWriter())
    this.segments.push(next)
    this.config.descriptorBudget.touch(this.holder)
  }

  // READS

  /**
   * Whole batches from the one holding `fetchOffset`: at least one (even beyond `maxBytes`), then as many as fit,
   * only those whose last offset is below `bound`. One read per segment; the batches are views into the result.
   * With `into`, the segments are read into it while they fit (the result is then a view of it): a reader that
   * asks for megabytes step after step reuses one buffer instead of faulting in a fresh one each time.
   */
  read(fetchOffset: number, maxBytes: number, bound: number, into?: Buffer): { records: Buffer; readonly batches: StoredBatch[]; lastOffset: number | null } {
    const chunks: Buffer[] = []
    const found: Array<{ header: BatchHeader; chunk: number; start: number }> = []
    let total = 0
    let done = fetchOffset >= bound
    let segmentIndex = this.segments.indexFor(fetchOffset)
    let firstSegment = true
    while (!done && segmentIndex < this.segments.count) {
      const segment = this.segments.at(segmentIndex)
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
      // Chunks land one after another in `into` (each past the whole batches of the one before), so the records
      // stay one view of it.
      const chunk = into !== undefined && total + want <= into.length ? segment.readInto(position, into.subarray(total, total + want)) : segment.read(position, want)
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

    const records = chunks.length === 1 ? chunks[0]! : adjacentIn(into, chunks) ?? Buffer.concat(chunks)
    const chunkStarts: number[] = []
    let offset = 0
    for (const chunk of chunks) {
      chunkStarts.push(offset)
      offset += chunk.length
    }
    // Each batch's object (its header's fields and a view of its bytes) only when asked: a fetch answers with the
    // bytes and the last offset, and building them for a step of 16 KiB batches was a third of a verification's
    // garbage (npm run bench -- verify's setup with small batches, session 19).
    let batches: StoredBatch[] | undefined
    return {
      records,
      lastOffset: found.at(-1)?.header.lastOffset ?? null,
      get batches() {
        return (batches ??= found.map(({ header, chunk, start }) => {
          const at = chunkStarts[chunk]! + start
          return { ...header, raw: records.subarray(at, at + header.sizeInBytes) }
        }))
      },
    }
  }

  /**
   * The header of the batch holding `offset` when its last offset is below `bound`, else null; reads the header
   * only (after a read, the segment remembers where the next batch starts). A fetch's next-record timestamp.
   */
  headerAt(offset: number, bound: number): BatchHeader | null {
    if (offset >= bound) return null
    for (let index = this.segments.indexFor(offset); index < this.segments.count; index++) {
      const located = this.segments.at(index).findBatch(offset)
      if (located) return located.header.lastOffset < bound ? located.header : null
    }
    return null
  }

  /** First record at or after `logStartOffset` whose timestamp is ≥ `timestamp` (ListOffsets by time). */
  offsetForTimestamp(timestamp: number, logStartOffset: number): TimestampOffset | null {
    for (const segment of this.segments.all()) {
      if (segment.maxTimestamp < timestamp || segment.size === 0) continue
      const startOffset = Math.max(segment.timeIndex.lookup(timestamp), logStartOffset)
      let result: TimestampOffset | null = null
      const outcome = segment.scan(segment.offsetIndex.lookup(startOffset), segment.size, { needsBytes: (h) => h.maxTimestamp >= timestamp }, (header, _position, bytes) => {
        if (header.maxTimestamp < timestamp || header.lastOffset < logStartOffset || !bytes) return true
        if (header.compression !== 'none') {
          result = { offset: Math.max(header.baseOffset, logStartOffset), timestamp: header.maxTimestamp, leaderEpoch: header.partitionLeaderEpoch }
          return false
        }
        for (const record of decodeBatchRecords(bytes, header)) {
          if (record.timestamp >= timestamp && record.offset >= logStartOffset) {
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

  // TRUNCATION AND DELETION

  /**
   * Removes whole batches from the one holding `offset` (≥ the first segment's base) onwards and returns the new
   * end: the segment holding it becomes active again, later segments are deleted, waiters of removed data reject.
   */
  truncateTo(offset: number): number {
    const index = this.segments.indexFor(offset)
    const segment = this.segments.at(index)
    const located = segment.findBatch(offset)
    const cutPosition = located ? located.position : segment.size
    const newEnd = located ? located.header.baseOffset : segment.nextOffset
    for (const doomed of this.segments.removeAfter(index)) {
      this.commit.retireFd(doomed.detachWriter())
      doomed.deleteFiles()
    }
    fsyncDirectory(this.dir)
    segment.openWriter()
    this.config.descriptorBudget.touch(this.holder)
    segment.truncateToPosition(cutPosition)
    // The segment is active again: its index files no longer describe it and are rewritten on roll/close.
    segment.deleteIndexFiles()
    segment.reloadStatsByScan(this.config.indexIntervalBytes)
    segment.aborted = segment.aborted.filter((t) => t.lastOffset < newEnd)
    this.commit.onTruncated(newEnd)
    return newEnd
  }

  /** Deletes every segment and starts one, empty, at `offset`. */
  deleteAllAndStartAt(offset: number): void {
    for (const doomed of [...this.segments.all()].reverse()) {
      this.commit.retireFd(doomed.detachWriter())
      doomed.deleteFiles()
    }
    this.segments.reset(LogSegment.create(this.dir, offset, this.config.now()))
    this.config.descriptorBudget.touch(this.holder)
    fsyncDirectory(this.dir)
    this.commit.onTruncated(offset, Number.NEGATIVE_INFINITY)
  }

  /** Deletes the segments wholly below `offset` (never the active one); returns the first kept base, or undefined. */
  deleteSegmentsBelow(offset: number): number | undefined {
    const remove = this.segments.countWhollyBelow(offset)
    if (remove === 0) return undefined
    for (const doomed of this.segments.removeFirst(remove)) doomed.deleteFiles()
    fsyncDirectory(this.dir)
    return this.segments.first.baseOffset
  }

  // DESCRIPTORS AND SHUTDOWN

  /** Closes the active descriptor if nothing written waits for its fsync. */
  releaseDescriptor(): boolean {
    if (!this.commit.isIdle) return false
    if (this.active.fd === undefined) return true
    this.commit.retireFd(this.active.detachWriter())
    return true
  }

  closeWriters(): void {
    for (const segment of this.segments.all()) this.commit.retireFd(segment.detachWriter())
    this.commit.closeRetiredFds()
    this.config.descriptorBudget.forget(this.holder)
  }
}
