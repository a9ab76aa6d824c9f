import { StorageError } from './errors'
import type { AbortedTransaction } from './types'
import { readInt64, writeInt64 } from './varint'

/*
 * The per-segment indexes in Kafka's binary layouts, held in memory and serialised whole:
 * - offset index (`.index`): int32 relative offset + int32 position (8 bytes); one entry per
 *   ≥ index.interval.bytes of batches, mapping a batch's last offset to the batch's start position;
 * - time index (`.timeindex`): int64 timestamp + int32 relative offset (12 bytes); the largest timestamp so far
 *   and the offset of that record, appended only when the timestamp grows;
 * - transaction index (`.txnindex`): int16 version 0 + producerId, firstOffset, lastOffset, lastStableOffset
 *   as int64 (34 bytes) per aborted transaction whose ABORT marker lies in the segment.
 */

const OFFSET_ENTRY_SIZE = 8
const TIME_ENTRY_SIZE = 12
const TXN_ENTRY_SIZE = 34

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Index of the last element whose key ≤ target in an ascending array, or -1. */
function floorIndex(keys: readonly number[], target: number): number {
  let lo = 0
  let hi = keys.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (keys[mid]! <= target) {
      found = mid
      lo = mid + 1
    } else {
      hi = mid - 1
    }
  }
  return found
}

export class OffsetIndex {
  private offsets: number[] = []
  private positions: number[] = []

  constructor(readonly baseOffset: number) {}

  get entryCount(): number {
    return this.offsets.length
  }

  /** Adds (absolute offset, position); both must grow. */
  append(offset: number, position: number): void {
    const lastOffset = this.offsets.at(-1)
    if (lastOffset !== undefined && (offset <= lastOffset || position <= this.positions.at(-1)!)) {
      throw new RangeError(`offset index entries must increase: (${offset}, ${position}) after (${lastOffset}, ${this.positions.at(-1)})`)
    }
    this.offsets.push(offset)
    this.positions.push(position)
  }

  /**
   * Start position for a scan to `offset`: the position of the last indexed batch whose last offset is ≤
   * `offset` (the wanted batch is at or after it), or 0.
   */
  lookup(offset: number): number {
    const i = floorIndex(this.offsets, offset)
    return i < 0 ? 0 : this.positions[i]!
  }

  /** Drops entries for batches at or after `position` (the segment file was cut there). */
  truncateToPosition(position: number): void {
    let n = this.positions.length
    while (n > 0 && this.positions[n - 1]! >= position) n--
    this.offsets.length = n
    this.positions.length = n
  }

  encode(): Uint8Array {
    const bytes = new Uint8Array(this.offsets.length * OFFSET_ENTRY_SIZE)
    const v = view(bytes)
    for (let i = 0; i < this.offsets.length; i++) {
      v.setInt32(i * OFFSET_ENTRY_SIZE, this.offsets[i]! - this.baseOffset)
      v.setInt32(i * OFFSET_ENTRY_SIZE + 4, this.positions[i]!)
    }
    return bytes
  }

  /**
   * Parses an index file, checking what recovery relies on: whole entries, strictly increasing offsets and
   * positions, positions inside the segment. Kafka preallocates index files, so trailing all-zero entries after
   * the first one are ignored. Throws CORRUPT_RECORD when the file cannot be trusted (rebuild it).
   */
  static decode(baseOffset: number, bytes: Uint8Array, segmentSize: number): OffsetIndex {
    if (bytes.length % OFFSET_ENTRY_SIZE !== 0) throw new StorageError('CORRUPT_RECORD', 'offset index size is not a multiple of 8')
    const index = new OffsetIndex(baseOffset)
    const v = view(bytes)
    for (let p = 0; p < bytes.length; p += OFFSET_ENTRY_SIZE) {
      const relative = v.getInt32(p)
      const position = v.getInt32(p + 4)
      if (p > 0 && relative === 0 && position === 0) break
      if (position < 0 || position >= segmentSize || relative < 0) throw new StorageError('CORRUPT_RECORD', `offset index entry ${p / 8} points outside the segment`)
      try {
        index.append(baseOffset + relative, position)
      } catch (cause) {
        throw new StorageError('CORRUPT_RECORD', 'offset index entries are not increasing', { cause })
      }
    }
    return index
  }
}

export class TimeIndex {
  private timestamps: number[] = []
  private offsets: number[] = []

  constructor(readonly baseOffset: number) {}

  get entryCount(): number {
    return this.timestamps.length
  }

  /** Largest timestamp indexed so far, or -1. */
  get lastTimestamp(): number {
    return this.timestamps.at(-1) ?? -1
  }

  /** Offset of the last entry, or -1. */
  get lastEntryOffset(): number {
    return this.offsets.at(-1) ?? -1
  }

  /** Appends when `timestamp` is larger than every indexed one (Kafka's maybeAppend). */
  maybeAppend(timestamp: number, offset: number): void {
    const last = this.timestamps.at(-1)
    if (last !== undefined && timestamp <= last) return
    if (offset < (this.offsets.at(-1) ?? -Infinity)) return
    this.timestamps.push(timestamp)
    this.offsets.push(offset)
  }

  /**
   * Where a search for the first record with a timestamp ≥ `timestamp` can start: the offset of the last entry
   * whose timestamp is strictly below it (an entry's timestamp is the maximum of every record up to its offset,
   * so nothing at or before that offset qualifies), or baseOffset when there is none.
   */
  lookup(timestamp: number): number {
    const i = floorIndex(this.timestamps, timestamp - 1)
    return i < 0 ? this.baseOffset : this.offsets[i]!
  }

  /** Drops entries at or after `offset`. */
  truncateToOffset(offset: number): void {
    let n = this.offsets.length
    while (n > 0 && this.offsets[n - 1]! >= offset) n--
    this.timestamps.length = n
    this.offsets.length = n
  }

  encode(): Uint8Array {
    const bytes = new Uint8Array(this.timestamps.length * TIME_ENTRY_SIZE)
    const v = view(bytes)
    for (let i = 0; i < this.timestamps.length; i++) {
      writeInt64(v, i * TIME_ENTRY_SIZE, this.timestamps[i]!)
      v.setInt32(i * TIME_ENTRY_SIZE + 8, this.offsets[i]! - this.baseOffset)
    }
    return bytes
  }

  static decode(baseOffset: number, bytes: Uint8Array): TimeIndex {
    if (bytes.length % TIME_ENTRY_SIZE !== 0) throw new StorageError('CORRUPT_RECORD', 'time index size is not a multiple of 12')
    const index = new TimeIndex(baseOffset)
    const v = view(bytes)
    for (let p = 0; p < bytes.length; p += TIME_ENTRY_SIZE) {
      const timestamp = readInt64(v, p)
      const relative = v.getInt32(p + 8)
      if (p > 0 && timestamp === 0 && relative === 0) break
      if (relative < 0 || (index.timestamps.length > 0 && timestamp <= index.lastTimestamp)) {
        throw new StorageError('CORRUPT_RECORD', `time index entry ${p / TIME_ENTRY_SIZE} is out of order`)
      }
      index.timestamps.push(timestamp)
      index.offsets.push(baseOffset + relative)
    }
    return index
  }
}

export function encodeTxnIndex(entries: readonly AbortedTransaction[]): Uint8Array {
  const bytes = new Uint8Array(entries.length * TXN_ENTRY_SIZE)
  const v = view(bytes)
  entries.forEach((e, i) => {
    const p = i * TXN_ENTRY_SIZE
    v.setInt16(p, 0)
    writeInt64(v, p + 2, e.producerId)
    writeInt64(v, p + 10, e.firstOffset)
    writeInt64(v, p + 18, e.lastOffset)
    writeInt64(v, p + 26, e.lastStableOffset)
  })
  return bytes
}

export function decodeTxnIndex(bytes: Uint8Array): AbortedTransaction[] {
  if (bytes.length % TXN_ENTRY_SIZE !== 0) throw new StorageError('CORRUPT_RECORD', 'transaction index size is not a multiple of 34')
  const v = view(bytes)
  const out: AbortedTransaction[] = []
  for (let p = 0; p < bytes.length; p += TXN_ENTRY_SIZE) {
    if (v.getInt16(p) !== 0) throw new StorageError('CORRUPT_RECORD', `transaction index entry ${p / TXN_ENTRY_SIZE} has an unknown version`)
    out.push({ producerId: readInt64(v, p + 2), firstOffset: readInt64(v, p + 10), lastOffset: readInt64(v, p + 18), lastStableOffset: readInt64(v, p + 26) })
  }
  return out
}

/**
 * Aborted transactions that a read of [fetchOffset, upperBoundOffset) must report (Kafka's
 * collectAbortedTransactions): marker at or after fetchOffset, data starting before the upper bound.
 * `entries` must be ordered by lastOffset.
 */
export function collectAbortedTransactions(entries: readonly AbortedTransaction[], fetchOffset: number, upperBoundOffset: number): AbortedTransaction[] {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (entries[mid]!.lastOffset < fetchOffset) lo = mid + 1
    else hi = mid
  }
  const out: AbortedTransaction[] = []
  for (let i = lo; i < entries.length; i++) {
    const e = entries[i]!
    if (e.firstOffset < upperBoundOffset) out.push(e)
  }
  return out
}
