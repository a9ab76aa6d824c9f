import 'server-only'
import fs from 'node:fs'
import path from 'node:path'
import { StorageError } from '@/lib/log/errors'
import { rebuildBatch, recordSlots, type RecordSlot } from '@/lib/log/batch-filter'
import { CleanedTransactions } from '@/lib/log/cleaned-transactions'
import { readBatchHeader, readControlInfo, viewOf } from '@/lib/log/record-batch'
import type { AbortedTransaction, BatchHeader } from '@/lib/log/types'
import { TimeSlice } from '@/server/util/cooperative'
import { unlinkIfExists } from '@/server/util/durable-file'
import { crc32c } from '../crc32c'
import { writeFully } from '../fs-utils'
import type { LogSegments } from '../log-segments'
import { LogSegment } from '../segment'
import { cleanedFileName } from './segment-swap'

/*
 * One cleaning pass over a compacted log (Kafka's Cleaner.clean), in bounded slices so the event loop keeps
 * serving appends and reads:
 *
 * 1. The cleanable range: whole sealed segments below min(active segment base, last stable offset) — so the
 *    active segment, open transactions and data above the high watermark are never touched — and below
 *    `min.compaction.lag.ms`. The dirty part starts at the cleaner checkpoint.
 * 2. An offset map of the dirty part: key → offset of its latest record (control batches and aborted
 *    transactional data do not count). Bounded: a full map ends the pass early, the rest waits for the next.
 * 3. Every cleanable segment from the log start is rewritten, in groups that fit one segment, keeping per
 *    key only the latest record, offsets unchanged (compaction leaves gaps), and swapped in crash-safely.
 *
 * Batch-level rules are Kafka's (LogCleaner.cleanInto + MemoryRecords.filterTo): aborted data goes, markers
 * stay until their transaction's data is gone and then until their delete horizon, tombstones stay until
 * theirs (`delete.retention.ms` after the first clean that saw them, written in the batch as KIP-534 does),
 * and the last batch of every active producer stays — emptied if need be — so its sequence and epoch survive.
 * Compressed batches (which this codebase does not decode) are kept whole.
 */

/** What a pass needs from the log it cleans; PartitionLog provides it. */
export interface CleanTarget {
  readonly dir: string
  segments(): LogSegments
  /** Bumped by every change that removes or cuts segments (truncation, retention, delete-records, close). */
  structureVersion(): number
  logStartOffset(): number
  lastStableOffset(): number
  /** The cleaner checkpoint: offsets below it were cleaned already. */
  firstDirtyOffset(): number
  /** A delete horizon a previous pass left has passed: worth a pass even without new dirty data (KIP-534). */
  deleteHorizonDue(): boolean
  abortedTransactions(fromOffset: number, toOffset: number): AbortedTransaction[]
  /** Per producer id: the last offset of its data (null when it has none) and its epoch. */
  activeProducers(): Map<number, { lastDataOffset: number | null; producerEpoch: number }>
  config(): { segmentBytes: number; indexIntervalBytes: number; deleteRetentionMs: number; minCompactionLagMs: number; now: () => number }
  /**
   * Swaps segments [firstIndex, firstIndex + count) for `cleaned` (its `.cleaned` file complete and fsync'd),
   * unless the structure changed since `version`; false then, and the caller deletes its file.
   */
  swapCleanedSegment(group: SegmentGroup, cleaned: LogSegment, retainedAborted: AbortedTransaction[], version: number): boolean
  /** Records that [.., offset) is clean, and the earliest delete horizon the pass left in the log. */
  completePass(firstDirtyOffset: number, nextDeleteHorizonMs: number | undefined): void
}

export interface SegmentGroup {
  firstIndex: number
  count: number
  baseOffset: number
  /** The next segment's base: the group replaces every segment with a base in [baseOffset, endOffset). */
  endOffset: number
}

export type CleanOutcome =
  | { kind: 'cleaned'; firstDirtyOffset: number; segmentsBefore: number; segmentsAfter: number; bytesBefore: number; bytesAfter: number; recordsRemoved: number }
  | { kind: 'nothing-to-clean' }
  | { kind: 'aborted'; reason: string }

export interface CleanOptions {
  /** Most distinct keys the offset map holds in one pass (Kafka bounds it by log.cleaner.dedupe.buffer.size). */
  offsetMapCapacity: number
  /** Synchronous work between two yields to the event loop. */
  sliceMs: number
}

/** The cleanable range of `target` now: sealed segments whose every offset is below the first uncleanable one. */
export function cleanableRange(target: CleanTarget): { segments: readonly LogSegment[]; firstDirtyOffset: number; dirtyBytes: number; totalBytes: number } {
  const { minCompactionLagMs, now } = target.config()
  const segments = target.segments()
  let firstUncleanable = Math.min(segments.active.baseOffset, target.lastStableOffset())
  const lagHorizon = now() - minCompactionLagMs
  const cleanable: LogSegment[] = []
  for (const segment of segments.inactive()) {
    if (minCompactionLagMs > 0 && segment.maxTimestamp > lagHorizon) firstUncleanable = Math.min(firstUncleanable, segment.baseOffset)
    if (segment.nextOffset > firstUncleanable) break
    cleanable.push(segment)
  }
  const start = Math.max(target.firstDirtyOffset(), target.logStartOffset())
  let dirtyBytes = 0
  let totalBytes = 0
  for (const segment of cleanable) {
    totalBytes += segment.size
    if (segment.nextOffset > start) dirtyBytes += segment.size
  }
  return { segments: cleanable, firstDirtyOffset: start, dirtyBytes, totalBytes }
}

interface PassControl {
  slice: TimeSlice
  isCancelled: () => boolean
}

function keyString(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1')
}

/** Visits every batch of `segment` from `start`, yielding to the event loop when the slice is used up. */
async function forEachBatch(
  segment: LogSegment,
  start: number,
  pass: { slice: TimeSlice; isCancelled: () => boolean },
  visit: (header: BatchHeader, bytes: Uint8Array) => 'continue' | 'stop',
): Promise<void> {
  const { slice } = pass
  let position = start
  let stopped = false
  while (position < segment.size && !stopped) {
    if (pass.isCancelled()) throw new StorageError('LOG_CLOSED', `cleaning of segment ${segment.baseOffset} was cancelled: the log changed`)
    let yieldDue = false
    const outcome = segment.scan(position, segment.size, { needsBytes: () => true }, (header, _pos, bytes) => {
      if (visit(header, bytes!) === 'stop') {
        stopped = true
        return false
      }
      yieldDue = slice.maybeYield() !== undefined
      return !yieldDue
    })
    if (outcome.error) throw outcome.error
    position = outcome.validEnd
    if (yieldDue) await new Promise<void>((resolve) => setImmediate(resolve))
  }
}

/** Key → offset of its latest record in [from, to), bounded by `capacity` (then `end` says where it stopped). */
async function buildOffsetMap(target: CleanTarget, segments: readonly LogSegment[], from: number, to: number, capacity: number, pass: PassControl): Promise<{ map: Map<string, number>; end: number }> {
  const map = new Map<string, number>()
  const txns = new CleanedTransactions(target.abortedTransactions(from, to))
  let end = to
  for (const segment of segments) {
    if (segment.nextOffset <= from) continue
    let full = false
    const start = from > segment.baseOffset ? (segment.findBatch(from)?.position ?? segment.size) : 0
    await forEachBatch(segment, start, pass, (header, bytes) => {
      if (header.isControl) {
        txns.onControlBatch(header, readControlInfo(bytes, header))
        return 'continue'
      }
      if (txns.onDataBatch(header) || header.compression !== 'none') return 'continue'
      if (map.size > 0 && map.size + header.recordCount > capacity) {
        end = header.baseOffset
        full = true
        return 'stop'
      }
      for (const slot of recordSlots(bytes, header)) if (slot.key !== null && slot.offset >= from) map.set(keyString(slot.key), slot.offset)
      return 'continue'
    })
    if (full) break
  }
  return { map, end }
}

/** Consecutive segments whose sizes sum to at most one segment (and whose offsets fit int32 relative offsets). */
function groupBySize(all: LogSegments, count: number, segmentBytes: number): SegmentGroup[] {
  const groups: SegmentGroup[] = []
  let i = 0
  while (i < count) {
    const first = all.at(i)
    let size = first.size
    let n = 1
    while (i + n < count && size + all.at(i + n).size <= segmentBytes && all.at(i + n).nextOffset - 1 - first.baseOffset <= 2147483647) {
      size += all.at(i + n).size
      n++
    }
    groups.push({ firstIndex: i, count: n, baseOffset: first.baseOffset, endOffset: all.at(i + n).baseOffset })
    i += n
  }
  return groups
}

/** Buffers the cleaned segment's bytes into 1 MiB writes and tracks its indexes as Kafka's LogSegment.append. */
class CleanedSegmentWriter {
  private readonly fd: number
  private buffer = Buffer.allocUnsafe(1 << 20)
  private buffered = 0
  private written = 0

  constructor(
    readonly segment: LogSegment,
    readonly file: string,
    private readonly indexIntervalBytes: number,
  ) {
    this.fd = fs.openSync(file, 'w')
  }

  append(bytes: Uint8Array, header: BatchHeader): void {
    this.segment.onBatchAppended(header, this.written + this.buffered, this.indexIntervalBytes)
    if (this.buffered + bytes.length > this.buffer.length) this.flushBuffer()
    if (bytes.length > this.buffer.length) {
      writeFully(this.fd, bytes, this.written)
      this.written += bytes.length
      return
    }
    this.buffer.set(bytes, this.buffered)
    this.buffered += bytes.length
  }

  private flushBuffer(): void {
    if (this.buffered === 0) return
    writeFully(this.fd, this.buffer.subarray(0, this.buffered), this.written)
    this.written += this.buffered
    this.buffered = 0
  }

  /** Writes what is buffered and fdatasyncs off the event loop. */
  async finish(): Promise<number> {
    this.flushBuffer()
    await new Promise<void>((resolve, reject) => fs.fdatasync(this.fd, (error) => (error ? reject(error) : resolve())))
    fs.closeSync(this.fd)
    this.segment.size = this.written
    return this.written
  }

  abandon(): void {
    try {
      fs.closeSync(this.fd)
    } catch {
      // Closed already by finish().
    }
    unlinkIfExists(this.file)
  }
}

/** Runs one pass. Never throws for a concurrent truncation or close: the pass is abandoned and its files removed. */
export async function cleanLog(target: CleanTarget, options: CleanOptions): Promise<CleanOutcome> {
  const version = target.structureVersion()
  const range = cleanableRange(target)
  const segments = target.segments()
  if (range.segments.length === 0 || (range.dirtyBytes === 0 && !target.deleteHorizonDue())) return { kind: 'nothing-to-clean' }
  const pass: PassControl = { slice: new TimeSlice(options.sliceMs), isCancelled: () => target.structureVersion() !== version }
  const { segmentBytes, indexIntervalBytes, deleteRetentionMs, now } = target.config()
  const cleanEnd = range.segments.at(-1)!.nextOffset
  let writer: CleanedSegmentWriter | undefined
  try {
    const { map, end } = await buildOffsetMap(target, range.segments, range.firstDirtyOffset, cleanEnd, options.offsetMapCapacity, pass)
    if (target.structureVersion() !== version) return { kind: 'aborted', reason: 'the log was truncated or closed while the offset map was built' }
    let toClean = 0
    while (toClean < range.segments.length && range.segments[toClean]!.baseOffset < end) toClean++
    const currentTime = now()
    const producers = target.activeProducers()
    const groups = groupBySize(segments, toClean, segmentBytes)
    const bytesBefore = range.segments.slice(0, toClean).reduce((sum, s) => sum + s.size, 0)
    let bytesAfter = 0
    let recordsRemoved = 0
    let nextDeleteHorizonMs: number | undefined
    const txns = new CleanedTransactions()
    // Groups shift left as they are swapped (each becomes one segment): track the current index.
    let shift = 0
    for (const planned of groups) {
      const group = { ...planned, firstIndex: planned.firstIndex - shift }
      const cleaned = new LogSegment(target.dir, group.baseOffset, currentTime)
      writer = new CleanedSegmentWriter(cleaned, path.join(target.dir, cleanedFileName(group.baseOffset)), indexIntervalBytes)
      for (let i = 0; i < group.count; i++) {
        const segment = target.segments().at(group.firstIndex + i)
        txns.addAborted(target.abortedTransactions(segment.baseOffset, segment.nextOffset))
        await forEachBatch(segment, 0, pass, (header, bytes) => {
          const kept = filterBatch(header, bytes, { map, txns, producers, currentTime, deleteRetentionMs })
          recordsRemoved += kept.recordsRemoved
          if (kept.bytes) {
            const keptHeader = kept.bytes === bytes ? header : readBatchHeader(viewOf(kept.bytes))
            if (keptHeader.hasDeleteHorizon && keptHeader.recordCount > 0) nextDeleteHorizonMs = Math.min(nextDeleteHorizonMs ?? Infinity, keptHeader.baseTimestamp)
            writer!.append(kept.bytes, keptHeader)
          }
          return 'continue'
        })
        if (target.structureVersion() !== version) {
          writer.abandon()
          return { kind: 'aborted', reason: 'the log was truncated or closed during cleaning' }
        }
      }
      bytesAfter += await writer.finish()
      cleaned.sealTimeIndex()
      if (!target.swapCleanedSegment(group, cleaned, txns.takeRetainedAbortedIndex(), version)) {
        writer.abandon()
        return { kind: 'aborted', reason: 'the log was truncated or closed before the swap' }
      }
      writer = undefined
      shift += group.count - 1
    }
    target.completePass(end, nextDeleteHorizonMs)
    return { kind: 'cleaned', firstDirtyOffset: end, segmentsBefore: toClean, segmentsAfter: groups.length, bytesBefore, bytesAfter, recordsRemoved }
  } catch (error) {
    writer?.abandon()
    if (target.structureVersion() !== version) return { kind: 'aborted', reason: 'the log changed under the cleaner' }
    throw error
  }
}

interface FilterContext {
  map: Map<string, number>
  txns: CleanedTransactions
  producers: Map<number, { lastDataOffset: number | null; producerEpoch: number }>
  currentTime: number
  deleteRetentionMs: number
}

/** Kafka's checkBatchRetention + shouldRetainRecord for one batch: the bytes to keep (the same view when unchanged), or none. */
function filterBatch(header: BatchHeader, bytes: Uint8Array, ctx: FilterContext): { bytes: Uint8Array | undefined; recordsRemoved: number } {
  const control = header.isControl ? readControlInfo(bytes, header) : undefined
  const canDiscardBatch = header.isControl ? ctx.txns.onControlBatch(header, control) : ctx.txns.onDataBatch(header)
  if (header.compression !== 'none') return { bytes, recordsRemoved: 0 }
  const horizonPassed = header.hasDeleteHorizon && header.baseTimestamp <= ctx.currentTime
  const discardRecords = header.isControl ? canDiscardBatch && horizonPassed : canDiscardBatch
  const last = header.producerId >= 0 ? ctx.producers.get(header.producerId) : undefined
  const isLastBatchOfProducer =
    last !== undefined && (last.lastDataOffset !== null ? header.lastOffset === last.lastDataOffset : header.isControl && header.producerEpoch === last.producerEpoch)
  const slots = recordSlots(bytes, header)
  const retain = (slot: RecordSlot): boolean => {
    if (header.isControl) return true
    if (slot.key === null) return false
    const latest = ctx.map.get(keyString(slot.key))
    if (latest !== undefined && latest > slot.offset) return false
    return !slot.isTombstone || !header.hasDeleteHorizon || ctx.currentTime < header.baseTimestamp
  }
  const kept = discardRecords ? [] : slots.filter(retain)
  const recordsRemoved = slots.length - kept.length
  if (kept.length === 0) {
    // Kafka's RETAIN_EMPTY: the header alone keeps the producer's last sequence and epoch.
    if (!isLastBatchOfProducer) return { bytes: undefined, recordsRemoved }
    return { bytes: header.recordCount === 0 ? bytes : rebuildBatch(bytes, header, [], crc32c), recordsRemoved }
  }
  const containsMarkerForEmptyTxn = canDiscardBatch && header.isControl
  const needsDeleteHorizon = !header.hasDeleteHorizon && (containsMarkerForEmptyTxn || kept.some((s) => s.isTombstone))
  if (kept.length === slots.length && !needsDeleteHorizon) return { bytes, recordsRemoved }
  return { bytes: rebuildBatch(bytes, header, kept, crc32c, needsDeleteHorizon ? { deleteHorizonMs: ctx.currentTime + ctx.deleteRetentionMs } : {}), recordsRemoved }
}
