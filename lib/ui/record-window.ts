import type { RecordEntry } from '../api/records'

/**
 * Re-reading a window of records as its log grows, without reading it all again. A window's records below what an
 * earlier read of the same log history covered cannot have changed (a log only appends; retention moves its start,
 * which the read's `fromOffset` already follows; a truncation starts a new history the caller tells apart), so
 * only the tail past that read is asked for. The partition page's end window moved every 1–2 s under the demo's
 * writes, and each move read and compared 2 × ~44 KB of records (issue #33's Lighthouse profile).
 */

export interface WindowRead {
  readonly fromOffset: number
  readonly limit: number
}

/** An earlier answer for this partition and log history: the read it answered and what it covered. */
export interface CoveredRead {
  readonly read: WindowRead
  readonly records: readonly RecordEntry[]
  /** One past the last offset that read covered (the records endpoint's `nextOffset`). */
  readonly nextOffset: number
}

/** What to keep from an earlier read, and where to read on from: the seam, the last kept record read again. */
export interface TailRead<C extends CoveredRead = CoveredRead> {
  /** The earlier read the kept records come from. */
  readonly earlier: C
  readonly kept: readonly RecordEntry[]
  /** Offset to read from (the last kept record's, to check the seam), or null when the kept records cover `end`. */
  readonly from: number | null
  readonly limit: number
}

/**
 * The best earlier read for `read` up to `end` (exclusive: the log's readable end, clipped to the window): one that
 * starts at or before the window and reaches furthest into it. Null when none covers the window's first offset
 * with a record (then read it all).
 */
export function tailRead<C extends CoveredRead>(read: WindowRead, end: number, earlier: readonly C[]): TailRead<C> | null {
  const windowEnd = read.fromOffset + read.limit
  let best: C | null = null
  for (const candidate of earlier) {
    if (candidate.read.fromOffset > read.fromOffset || candidate.nextOffset <= read.fromOffset) continue
    if (best === null || candidate.nextOffset > best.nextOffset) best = candidate
  }
  if (best === null) return null
  const covered = Math.min(best.nextOffset, windowEnd)
  const kept = best.records.filter((record) => record.offset >= read.fromOffset && record.offset < covered)
  const last = kept.at(-1)
  if (last === undefined) return null
  if (covered >= Math.min(end, windowEnd)) return { earlier: best, kept, from: null, limit: 0 }
  return { earlier: best, kept, from: last.offset, limit: Math.min(1000, Math.max(1, windowEnd - last.offset)) }
}

/**
 * The window's records: the kept ones and the tail read from the seam. Null when the seam record differs from the
 * kept one (the log was cut and written again since): the caller reads the window whole.
 */
export function joinTail(read: WindowRead, tail: TailRead, tailRecords: readonly RecordEntry[]): RecordEntry[] | null {
  const seam = tail.kept.at(-1)
  const first = tailRecords[0]
  if (seam === undefined || first === undefined || !sameRecord(seam, first)) return null
  const joined = [...tail.kept, ...tailRecords.slice(1)]
  return joined.length > read.limit ? joined.slice(0, read.limit) : joined
}

/** Two reads of a record show the same thing: every field a tape or the window's seam check looks at. */
export function sameRecord(a: RecordEntry, b: RecordEntry): boolean {
  return (
    a.offset === b.offset &&
    a.type === b.type &&
    a.key === b.key &&
    a.value === b.value &&
    a.encoding === b.encoding &&
    a.producerId === b.producerId &&
    a.producerEpoch === b.producerEpoch &&
    a.leaderEpoch === b.leaderEpoch &&
    a.transactional === b.transactional &&
    a.timestamp === b.timestamp &&
    a.headers.length === b.headers.length &&
    a.headers.every((header, index) => header.key === b.headers[index]!.key && header.value === b.headers[index]!.value)
  )
}
