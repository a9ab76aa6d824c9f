import 'server-only'
import fs from 'node:fs'
import path from 'node:path'
import { StorageError } from '@/lib/log/errors'
import type { Crc32c } from '@/lib/log/record-batch'
import { BATCH_HEADER_SIZE, LOG_OVERHEAD, readBatchHeader } from '@/lib/log/record-batch'
import { decodeTxnIndex, encodeTxnIndex, OffsetIndex, TimeIndex } from '@/lib/log/segment-index'
import type { AbortedTransaction, BatchHeader } from '@/lib/log/types'
import { readFileIfExists, syncsSkipped, unlinkIfExists, writeFileDurably, type DurableFileWrite } from '@/server/util/durable-file'
import { readFully, writeFully } from './fs-utils'

export const LOG_SUFFIX = '.log'
export const INDEX_SUFFIX = '.index'
export const TIME_INDEX_SUFFIX = '.timeindex'
export const TXN_INDEX_SUFFIX = '.txnindex'
export const PRODUCER_SNAPSHOT_SUFFIX = '.producer-snapshot'

/** Kafka's file naming: the base offset as 20 zero-padded digits. */
export function offsetFileName(offset: number, suffix: string): string {
  return `${String(offset).padStart(20, '0')}${suffix}`
}

/** The base offset encoded in a file name with the given suffix, or undefined for other files. */
export function parseOffsetFileName(name: string, suffix: string): number | undefined {
  if (!name.endsWith(suffix)) return undefined
  const digits = name.slice(0, -suffix.length)
  if (!/^\d{20}$/.test(digits)) return undefined
  const value = Number(digits)
  return Number.isSafeInteger(value) ? value : undefined
}

const SCAN_CHUNK_BYTES = 1 << 20
const LOOKUP_CHUNK_BYTES = 16 << 10

export interface ScanOptions {
  /** Check each batch's CRC32C (recovery); without it only lengths and headers are read. */
  crc32c?: Crc32c
  /** Whether the visitor needs the bytes of this batch (e.g. control batches for their marker type). */
  needsBytes?: (header: BatchHeader) => boolean
  /** Read size; small for header hops (index lookups), large for sequential scans. Default 1 MiB. */
  chunkBytes?: number
}

export interface ScanOutcome {
  /** Byte position after the last good batch. */
  validEnd: number
  /** Why the scan stopped before `end`, if it did. */
  error?: StorageError
}

/**
 * One segment: a `.log` file of whole batches plus its in-memory indexes. The active (last) segment keeps a
 * read/write descriptor open; index files are written when the segment stops being active and on close.
 */
export class LogSegment {
  size = 0
  nextOffset: number
  maxTimestamp = -1
  offsetOfMaxTimestamp = -1
  bytesSinceLastIndexEntry = 0
  offsetIndex: OffsetIndex
  timeIndex: TimeIndex
  /** Aborted transactions whose ABORT marker is in this segment, in marker order. */
  aborted: AbortedTransaction[] = []
  /** Wall-clock creation time, for segment.ms rolling. */
  createdAtMs: number
  fd: number | undefined
  /**
   * Where the batch starting at `offset` lies: remembered after appends and reads, so sequential readers
   * (followers, mirror fetchers, consumers) skip the index lookup and header hops.
   */
  private positionHint: { offset: number; position: number } | undefined

  constructor(
    readonly dir: string,
    readonly baseOffset: number,
    createdAtMs: number,
  ) {
    this.nextOffset = baseOffset
    this.offsetIndex = new OffsetIndex(baseOffset)
    this.timeIndex = new TimeIndex(baseOffset)
    this.createdAtMs = createdAtMs
  }

  path(suffix: string): string {
    return path.join(this.dir, offsetFileName(this.baseOffset, suffix))
  }

  /** Kept: a log past the descriptor budget reopens its segment for every append. */
  get logPath(): string {
    return (this.cachedLogPath ??= this.path(LOG_SUFFIX))
  }

  private cachedLogPath: string | undefined

  /** Creates an empty segment file (replacing any leftover) and opens it for writing. */
  static create(dir: string, baseOffset: number, nowMs: number): LogSegment {
    const segment = new LogSegment(dir, baseOffset, nowMs)
    segment.fd = fs.openSync(segment.logPath, 'w+')
    return segment
  }

  openWriter(): void {
    if (this.fd === undefined) this.fd = fs.openSync(this.logPath, 'r+')
  }

  /** Detaches the writer descriptor; the caller closes it once no fsync is using it. */
  detachWriter(): number | undefined {
    const fd = this.fd
    this.fd = undefined
    return fd
  }

  /** Writes bytes at the end of the segment (to the page cache; durability is the caller's fsync). */
  append(bytes: Uint8Array): void {
    if (this.fd === undefined) throw new Error(`segment ${this.baseOffset} is not open for writing`)
    writeFully(this.fd, bytes, this.size)
    this.size += bytes.length
  }

  /** Updates the indexes and stats for a batch just written at `position` (Kafka's LogSegment.append). */
  onBatchAppended(header: BatchHeader, position: number, indexIntervalBytes: number): void {
    if (header.maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = header.maxTimestamp
      this.offsetOfMaxTimestamp = header.lastOffset
    }
    if (this.bytesSinceLastIndexEntry > indexIntervalBytes) {
      this.offsetIndex.append(header.lastOffset, position)
      this.timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp)
      this.bytesSinceLastIndexEntry = 0
    }
    this.bytesSinceLastIndexEntry += header.sizeInBytes
    this.nextOffset = header.lastOffset + 1
    this.positionHint = { offset: this.nextOffset, position: position + header.sizeInBytes }
  }

  /** Records that the batch starting at `offset` begins at `position` (the end of a read). */
  rememberPosition(offset: number, position: number): void {
    this.positionHint = { offset, position }
  }

  /** Reads `length` bytes at `position` (fewer at the end of the file). */
  read(position: number, length: number): Buffer {
    return this.readInto(position, Buffer.allocUnsafe(length))
  }

  /** Reads `target.length` bytes at `position` into `target` (fewer at the end of the file); returns the part read. */
  readInto(position: number, target: Buffer): Buffer {
    const n = this.withReadFd((fd) => readFully(fd, target, target.length, position))
    return n === target.length ? target : target.subarray(0, n)
  }

  withReadFd<T>(body: (fd: number) => T): T {
    if (this.fd !== undefined) return body(this.fd)
    const fd = fs.openSync(this.logPath, 'r')
    try {
      return body(fd)
    } finally {
      fs.closeSync(fd)
    }
  }

  /**
   * Walks the batches in [start, end). Stops at the first incomplete or invalid batch (length, magic, CRC when
   * asked) and reports where the valid data ends; `visit` returning false stops early.
   */
  scan(start: number, end: number, options: ScanOptions, visit: (header: BatchHeader, position: number, bytes: Uint8Array | undefined) => boolean | void): ScanOutcome {
    return this.withReadFd((fd) => scanFile(fd, start, end, options, visit))
  }

  /**
   * Position of the first batch whose last offset is ≥ `offset`, with its header; undefined when every batch
   * of the segment ends before `offset`.
   */
  findBatch(offset: number): { position: number; header: BatchHeader } | undefined {
    const hint = this.positionHint
    if (hint && hint.offset === offset && hint.position + BATCH_HEADER_SIZE <= this.size) {
      const head = this.read(hint.position, BATCH_HEADER_SIZE)
      const header = readBatchHeader(new DataView(head.buffer, head.byteOffset, head.byteLength))
      if (header.baseOffset <= offset && offset <= header.lastOffset) return { position: hint.position, header }
    }
    let found: { position: number; header: BatchHeader } | undefined
    const outcome = this.scan(this.offsetIndex.lookup(offset), this.size, { chunkBytes: LOOKUP_CHUNK_BYTES }, (header, position) => {
      if (header.lastOffset >= offset) {
        found = { position, header }
        return false
      }
      return true
    })
    if (!found && outcome.error) throw outcome.error
    return found
  }

  /** Forgets indexes and stats, as before re-reading the segment. */
  resetStats(): void {
    this.positionHint = undefined
    this.offsetIndex = new OffsetIndex(this.baseOffset)
    this.timeIndex = new TimeIndex(this.baseOffset)
    this.maxTimestamp = -1
    this.offsetOfMaxTimestamp = -1
    this.bytesSinceLastIndexEntry = 0
    this.nextOffset = this.baseOffset
  }

  /** Rebuilds indexes and stats (end offset, max timestamp) from the batch headers; trusts the bytes. */
  reloadStatsByScan(indexIntervalBytes: number): void {
    this.resetStats()
    const outcome = this.scan(0, this.size, {}, (header, position) => this.onBatchAppended(header, position, indexIntervalBytes))
    if (outcome.error) throw outcome.error
  }

  /** Cuts the file at `position` (a batch boundary) and fsyncs. */
  truncateToPosition(position: number): void {
    const fd = this.fd ?? fs.openSync(this.logPath, 'r+')
    try {
      fs.ftruncateSync(fd, position)
      if (!syncsSkipped(this.dir)) fs.fdatasyncSync(fd)
    } finally {
      if (fd !== this.fd) fs.closeSync(fd)
    }
    this.size = position
    this.positionHint = undefined
  }

  /** Makes the timeindex end with the segment's largest timestamp (Kafka does this when a segment is rolled). */
  sealTimeIndex(): void {
    if (this.maxTimestamp >= 0) this.timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp)
  }

  /**
   * The index files this segment would get if it were sealed now (`.txnindex` null when nothing aborted here),
   * leaving the segment as it is: what a copy of the active segment takes (LogFileSnapshot.closeState).
   */
  sealedIndexBytes(): { index: Uint8Array; timeIndex: Uint8Array; txnIndex: Uint8Array | null } {
    const timeIndex = TimeIndex.decode(this.baseOffset, this.timeIndex.encode())
    if (this.maxTimestamp >= 0) timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp)
    return { index: this.offsetIndex.encode(), timeIndex: timeIndex.encode(), txnIndex: this.aborted.length > 0 ? encodeTxnIndex(this.aborted) : null }
  }

  /** Writes `.index`, `.timeindex` and `.txnindex` durably (the segment is no longer active, or on close). */
  writeIndexFiles(): void {
    for (const { file, data } of this.indexFiles()) writeFileDurably(file, data)
  }

  /** The index files to write (offset, time, and the txn index when any transaction aborted here; a stale one goes). */
  indexFiles(): DurableFileWrite[] {
    const files: DurableFileWrite[] = [
      { file: this.path(INDEX_SUFFIX), data: this.offsetIndex.encode() },
      { file: this.path(TIME_INDEX_SUFFIX), data: this.timeIndex.encode() },
    ]
    if (this.aborted.length > 0) files.push({ file: this.path(TXN_INDEX_SUFFIX), data: encodeTxnIndex(this.aborted) })
    else unlinkIfExists(this.path(TXN_INDEX_SUFFIX))
    return files
  }

  /**
   * Loads the index files of an inactive segment. Returns false when any is missing or implausible, so the
   * caller rebuilds them from the log (offset/time) or by replay (txn).
   */
  loadIndexFiles(): { indexesOk: boolean; txnIndexOk: boolean } {
    return this.loadIndexBytes(readFileIfExists(this.path(INDEX_SUFFIX)), readFileIfExists(this.path(TIME_INDEX_SUFFIX)), () => readFileIfExists(this.path(TXN_INDEX_SUFFIX)))
  }

  /** loadIndexFiles over the files' contents (undefined: a missing file), from disk or from memory (LogCloseState). */
  loadIndexBytes(index: Uint8Array | undefined, time: Uint8Array | undefined, txnIndex: () => Uint8Array | undefined): { indexesOk: boolean; txnIndexOk: boolean } {
    let indexesOk = true
    try {
      if (index === undefined || time === undefined) {
        indexesOk = false
      } else {
        this.offsetIndex = OffsetIndex.decode(this.baseOffset, index, this.size)
        this.timeIndex = TimeIndex.decode(this.baseOffset, time)
        this.maxTimestamp = this.timeIndex.lastTimestamp
        this.offsetOfMaxTimestamp = this.timeIndex.lastEntryOffset
      }
    } catch {
      indexesOk = false
    }
    let txnIndexOk = true
    try {
      const txn = txnIndex()
      this.aborted = txn === undefined ? [] : decodeTxnIndex(txn)
    } catch {
      txnIndexOk = false
      this.aborted = []
    }
    return { indexesOk, txnIndexOk }
  }

  deleteIndexFiles(): void {
    for (const suffix of [INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX]) unlinkIfExists(this.path(suffix))
  }

  deleteFiles(): void {
    this.deleteIndexFiles()
    unlinkIfExists(this.logPath)
  }
}

function scanFile(
  fd: number,
  start: number,
  end: number,
  options: ScanOptions,
  visit: (header: BatchHeader, position: number, bytes: Uint8Array | undefined) => boolean | void,
): ScanOutcome {
  const chunkBytes = options.chunkBytes ?? SCAN_CHUNK_BYTES
  let buffer = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(end - start, BATCH_HEADER_SIZE)))
  let view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  let bufferStart = start
  let bufferLength = 0

  /** Makes [pos, pos+need) available in the buffer; false when the file ends first. */
  const ensure = (pos: number, need: number): boolean => {
    if (pos >= bufferStart && pos + need <= bufferStart + bufferLength) return true
    const want = Math.min(Math.max(need, chunkBytes), end - pos)
    if (want < need) return false
    if (buffer.length < want) {
      buffer = Buffer.allocUnsafe(want)
      view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    }
    bufferStart = pos
    bufferLength = readFully(fd, buffer, want, pos)
    return bufferLength >= need
  }

  let pos = start
  while (pos < end) {
    const stop = (message: string): ScanOutcome => ({ validEnd: pos, error: new StorageError('CORRUPT_RECORD', message) })
    if (!ensure(pos, LOG_OVERHEAD)) return stop(`torn batch at byte ${pos}: length field incomplete`)
    const size = view.getInt32(pos - bufferStart + 8) + LOG_OVERHEAD
    if (size < BATCH_HEADER_SIZE) return stop(`invalid batch length ${size - LOG_OVERHEAD} at byte ${pos}`)
    if (pos + size > end) return stop(`torn batch at byte ${pos}: ${size} bytes announced, ${end - pos} present`)
    if (!ensure(pos, BATCH_HEADER_SIZE)) return stop(`torn batch header at byte ${pos}`)
    let header: BatchHeader
    try {
      header = readBatchHeader(view, pos - bufferStart)
    } catch (error) {
      return { validEnd: pos, error: error instanceof StorageError ? error : new StorageError('CORRUPT_RECORD', String(error)) }
    }
    let bytes: Uint8Array | undefined
    if (options.crc32c || options.needsBytes?.(header)) {
      if (!ensure(pos, size)) return stop(`torn batch at byte ${pos}`)
      bytes = buffer.subarray(pos - bufferStart, pos - bufferStart + size)
      if (options.crc32c) {
        const actual = options.crc32c(bytes.subarray(21)) >>> 0
        if (actual !== header.crc) return stop(`CRC mismatch in batch at offset ${header.baseOffset} (byte ${pos})`)
      }
    }
    if (visit(header, pos, bytes) === false) return { validEnd: pos + size }
    pos += size
  }
  return { validEnd: pos }
}
