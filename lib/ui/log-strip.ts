/**
 * The log strips of the partition page (UI.md §5 "like a tape"): the source and destination logs of one
 * mirror partition aligned by offset, so that offset N of both sits in one column and the KIP's worked
 * example reads like its tables. Pure: the page fetches one window of each log and this decides what every
 * cell shows, where the mirrored position and the truncation cut fall, which source records are at risk,
 * and which window to read for "start", "end", "jump to offset" and "truncation point".
 */
import type { RecordEntry } from '../api/records'

/** What a log holds, as the partitions and records endpoints describe it. */
export interface LogExtent {
  readonly logStartOffset: number
  readonly highWatermark: number
  readonly logEndOffset: number
}

/** Offsets `[from, from + size)`. */
export interface LogWindow {
  readonly from: number
  readonly size: number
}

export const LOG_WINDOW_SIZES = [50, 200, 1000] as const
export type LogWindowSize = (typeof LOG_WINDOW_SIZES)[number]
export const DEFAULT_LOG_WINDOW_SIZE: LogWindowSize = 200
/** The records endpoint's page limit: one request covers a whole window. */
export const MAX_RECORDS_PER_READ = 1000

export function isLogWindowSize(value: number): value is LogWindowSize {
  return (LOG_WINDOW_SIZES as readonly number[]).includes(value)
}

/** `[start, end)`: from the lowest log start to the highest log end of the logs shown. */
export interface LogBounds {
  readonly start: number
  readonly end: number
}

export function logBounds(extents: ReadonlyArray<LogExtent | null | undefined>): LogBounds {
  const known = extents.filter((extent): extent is LogExtent => extent != null)
  if (known.length === 0) return { start: 0, end: 0 }
  return {
    start: Math.min(...known.map((extent) => extent.logStartOffset)),
    end: Math.max(...known.map((extent) => extent.logEndOffset)),
  }
}

/** A window moved as little as needed to lie inside the bounds (or to start at them when the logs are shorter). */
export function clampWindow(from: number, size: number, bounds: LogBounds): LogWindow {
  const lastFrom = Math.max(bounds.start, bounds.end - size)
  return { from: Math.max(bounds.start, Math.min(Math.trunc(from), lastFrom)), size }
}

export function firstWindow(size: number, bounds: LogBounds): LogWindow {
  return clampWindow(bounds.start, size, bounds)
}

export function lastWindow(size: number, bounds: LogBounds): LogWindow {
  return clampWindow(bounds.end - size, size, bounds)
}

/** The window that shows `offset` with a quarter of the window before it, so what led up to it is in view. */
export function windowAround(offset: number, size: number, bounds: LogBounds): LogWindow {
  return clampWindow(offset - Math.floor(size / 4), size, bounds)
}

export function nextWindow(window: LogWindow, bounds: LogBounds): LogWindow {
  return clampWindow(window.from + window.size, window.size, bounds)
}

export function previousWindow(window: LogWindow, bounds: LogBounds): LogWindow {
  return clampWindow(window.from - window.size, window.size, bounds)
}

/**
 * Where a tape scrolled to the window's `focus` (its story point) starts: the column index a quarter of the
 * visible columns before it, so what led up to it is in view (a focus at the window's end, a log mirrored to
 * its end, shows the end). 0 when the focus is outside the window (the operator paged elsewhere): a page opens
 * at its start.
 */
export function openingColumn(window: LogWindow, focus: number | null, visibleColumns: number): number {
  if (focus === null || focus < window.from || focus > window.from + window.size) return 0
  const lead = Math.floor(Math.max(0, visibleColumns) / 4)
  return Math.max(0, focus - window.from - lead)
}

/**
 * Where the page opens: the whole log when it fits, else around the mirrored position (where the records at
 * risk begin, with at least a quarter of the window before it), else the end.
 *
 * The page re-reads its logs every few seconds and they grow: a window that followed every record (the mirrored
 * position, the log end) moved with each read, and each move re-drew every cell of the tape twice and scrolled it
 * back to the story (a 1.2–1.5 s task per read in Lighthouse's trace of a live partition, docs/architecture.md
 * session 27). So it moves in steps: its start on a grid of an eighth of the window (FOCUS_STEP), its end held at
 * the log end rounded up to a quarter (TAIL_STEP, the last columns not written yet), and it stands still between.
 */
export function initialWindow(size: number, bounds: LogBounds, focus: number | null): LogWindow {
  if (bounds.end - bounds.start <= size) return firstWindow(size, bounds)
  const tailStep = Math.max(1, Math.floor(size * TAIL_STEP))
  const lastFrom = Math.max(bounds.start, Math.ceil(bounds.end / tailStep) * tailStep - size)
  if (focus === null) return { from: lastFrom, size }
  const focusStep = focusStepOf(size)
  const wanted = Math.floor((focus - Math.floor(size / 4)) / focusStep) * focusStep
  return { from: Math.max(bounds.start, Math.min(wanted, lastFrom)), size }
}

/** The grid an opened window's start moves on, as a share of the window. */
const FOCUS_STEP = 1 / 8
/** The grid an opened window's end moves on at the log's end, as a share of the window. */
const TAIL_STEP = 1 / 4

function focusStepOf(size: number): number {
  return Math.max(1, Math.floor(size * FOCUS_STEP))
}

/** Where the window stands: opened by the page (auto), kept at the end, at a start, or around an offset. */
export type WindowAnchor =
  | { readonly kind: 'auto' }
  | { readonly kind: 'end' }
  | { readonly kind: 'from'; readonly from: number }
  | { readonly kind: 'around'; readonly offset: number }

/** The window an anchor means for logs that grow: the server's first render and the browser agree on it. */
export function resolveWindow(anchor: WindowAnchor, size: number, bounds: LogBounds, focus: number | null): LogWindow {
  switch (anchor.kind) {
    case 'auto':
      return initialWindow(size, bounds, focus)
    case 'end':
      return lastWindow(size, bounds)
    case 'from':
      return clampWindow(anchor.from, size, bounds)
    case 'around':
      return windowAround(anchor.offset, size, bounds)
  }
}

/**
 * The records request that covers the window on one log, or null when the window holds none of its offsets.
 * It depends on the log start only (not on the growing log end), so the query stays the same while records
 * are appended and a refetch extends it in place.
 */
export function recordsRead(window: LogWindow, extent: LogExtent): { fromOffset: number; limit: number } | null {
  const fromOffset = Math.max(window.from, extent.logStartOffset)
  const end = window.from + window.size
  if (fromOffset >= end || fromOffset >= extent.logEndOffset) return null
  return { fromOffset, limit: Math.min(MAX_RECORDS_PER_READ, end - fromOffset) }
}

/**
 * How many offsets of a window the page's HTML carries records for: the columns a wide screen shows (96 px
 * each) and the virtualizer's overscan. The browser reads the whole window itself; 1,000 offsets of records
 * inline made the HTML of the partition page several hundred kB (UI.md §4: first render < 1 s).
 */
export const FIRST_SCREEN_OFFSETS = 40

/** How far before the tape's opening point (`openAt`) the first screen starts: a wide screen's lead and overscan, with room. */
const FIRST_SCREEN_LEAD = 12

/**
 * The part of a window's read that the tapes show before any scrolling: the read itself when it is that short;
 * around `openAt` when the tape opens there (its story point, inside the window), else the window's start. The
 * first screen read at the window's start while the tape opened at the story near its end left every cell in
 * view loading until the whole window came, then re-drawn: one more long task of the page's load.
 */
export function firstScreenRead(read: { fromOffset: number; limit: number }, openAt: number | null = null): { fromOffset: number; limit: number } {
  if (read.limit <= FIRST_SCREEN_OFFSETS) return read
  const end = read.fromOffset + read.limit
  if (openAt === null || openAt > end) return { fromOffset: read.fromOffset, limit: FIRST_SCREEN_OFFSETS }
  return { fromOffset: Math.max(read.fromOffset, Math.min(openAt - FIRST_SCREEN_LEAD, end - FIRST_SCREEN_OFFSETS)), limit: FIRST_SCREEN_OFFSETS }
}

/**
 * Where the destination stands against its source: the offset below which the destination holds the
 * source's records. After a failover it is the last mirror position recorded by STOPPING (the markers the
 * destination appended then are its own); otherwise the destination's high watermark.
 */
export function mirroredPosition(partition: {
  readonly state: string
  readonly destinationHighWatermark: number
  readonly lastMirrorPosition: { readonly offset: number } | null
}): number {
  if ((partition.state === 'STOPPING' || partition.state === 'STOPPED') && partition.lastMirrorPosition !== null && partition.lastMirrorPosition.offset >= 0) {
    return partition.lastMirrorPosition.offset
  }
  return partition.destinationHighWatermark
}

/**
 * Where the tapes open when the log is longer than the window (issue #33 item 6: where the story is, never the
 * start of a long log): the mirrored position (where the records at risk begin); with the last truncation cut
 * too when both fit in the window (the window puts its focus a quarter in, so the earlier one is the focus);
 * the cut alone when they do not and the partition is FAILED or PREPARING (the cut is why it is there).
 */
export function storyFocus(
  partition: Parameters<typeof mirroredPosition>[0] & {
    readonly lastTruncation: { readonly offset: number; readonly removedRecords?: number } | null
    /** A FAILED partition's divergence: its cut point is the story (what a truncation would remove). */
    readonly divergence?: { readonly offset: number; readonly truncateTo: number | null } | null
  },
  size: number,
): number {
  const mirrored = mirroredPosition(partition)
  const divergence = partition.state === 'FAILED' ? (partition.divergence ?? null) : null
  // A start from scratch records a truncation that removed nothing: no cut, no story (it pulled a new mirror's
  // tapes back to offset 0).
  const truncation = partition.lastTruncation !== null && partition.lastTruncation.removedRecords !== 0 ? partition.lastTruncation : null
  const cut = divergence !== null ? (divergence.truncateTo ?? 0) : (truncation?.offset ?? null)
  if (cut === null) return mirrored
  // Both in one window: the later one within what the window holds after the earlier one, however its start
  // falls on its grid (initialWindow).
  if (Math.abs(mirrored - cut) < size - Math.floor(size / 4) - focusStepOf(size)) return Math.min(mirrored, cut)
  return partition.state === 'FAILED' || partition.state === 'PREPARING' ? cut : mirrored
}

/** The source records beyond the mirrored position: lost to destination readers if the mirror failed over now. */
export function recordsAtRisk(mirroredOffset: number | null, sourceLogEndOffset: number | null): { from: number; to: number; count: number } | null {
  if (mirroredOffset === null || sourceLogEndOffset === null || sourceLogEndOffset <= mirroredOffset) return null
  return { from: mirroredOffset, to: sourceLogEndOffset, count: sourceLogEndOffset - mirroredOffset }
}

/** Why a cell holds no record. */
export type EmptyReason =
  /** The lane's log is still being read. */
  | 'loading'
  /** Below the log start: deleted by retention (or never there). */
  | 'beforeLogStart'
  /** At or beyond the log end: not written (yet). */
  | 'beyondLogEnd'
  /** Written but not yet replicated to every in-sync replica, so not readable. */
  | 'aboveHighWatermark'
  /** Inside the log but without a record: removed by compaction. */
  | 'noRecord'

export interface LogCell {
  readonly offset: number
  readonly record: RecordEntry | null
  readonly empty: EmptyReason | null
  /** Source lane: at or beyond the mirrored position. Destination lane: the gap where those records would go. */
  readonly atRisk: boolean
  /** Destination lane: a record that the last truncation removed from this offset, when known. */
  readonly removed: RecordEntry | null
}

export interface LogColumn {
  readonly offset: number
  readonly source: LogCell
  readonly destination: LogCell
}

export interface LaneInput {
  readonly extent: LogExtent | null
  /** null while the window is being read. */
  readonly records: readonly RecordEntry[] | null
  /**
   * The records cover only the offsets below this one (the first screen the page's HTML carried, while the
   * whole window is read): the cells from here on are still loading, not empty.
   */
  readonly recordsEndOffset?: number
  /** Likewise, the records cover only the offsets from this one on (a first screen around the story's point). */
  readonly recordsFromOffset?: number
}

export interface Truncation {
  readonly offset: number
  readonly removedRecords: number
}

export interface AlignedLogs {
  readonly window: LogWindow
  readonly bounds: LogBounds
  /** One per offset shown: the window cut to the logs' bounds (no columns of nothing past the end). */
  readonly columns: readonly LogColumn[]
  readonly mirroredOffset: number | null
  /** Column index whose left edge the mirrored-position line runs along (columns.length: after the last); null when outside the window. */
  readonly mirroredLine: number | null
  readonly truncation: Truncation | null
  /** Column index of the truncation cut (its left edge); null when outside the window or there is none. */
  readonly truncationLine: number | null
  readonly atRisk: { from: number; to: number; count: number } | null
}

export interface AlignInput {
  readonly window: LogWindow
  readonly source: LaneInput
  readonly destination: LaneInput
  readonly mirroredOffset: number | null
  readonly truncation: Truncation | null
  /** Records the truncation removed (or will remove), when the caller knows them: shown ghosted on the destination. */
  readonly removedRecords?: readonly RecordEntry[]
}

export function alignLogs(input: AlignInput): AlignedLogs {
  const { window, source, destination, mirroredOffset, truncation } = input
  const bounds = logBounds([source.extent, destination.extent])
  const first = Math.max(window.from, bounds.start)
  const last = Math.min(window.from + window.size, bounds.end)
  const atRisk = recordsAtRisk(mirroredOffset, source.extent?.logEndOffset ?? null)
  const sourceByOffset = byOffset(source.records)
  const destinationByOffset = byOffset(destination.records)
  const removedByOffset = byOffset(input.removedRecords ?? null)
  const inRisk = (offset: number) => atRisk !== null && offset >= atRisk.from && offset < atRisk.to

  const columns: LogColumn[] = []
  for (let offset = first; offset < last; offset++) {
    const risky = inRisk(offset)
    columns.push({
      offset,
      source: cell(offset, source, sourceByOffset, risky, null),
      destination: cell(offset, destination, destinationByOffset, false, removedByOffset?.get(offset) ?? null, risky),
    })
  }
  return {
    window,
    bounds,
    columns,
    mirroredOffset,
    mirroredLine: lineAt(mirroredOffset, first, last),
    truncation,
    truncationLine: truncation === null ? null : lineAt(truncation.offset, first, last),
    atRisk,
  }
}

function byOffset(records: readonly RecordEntry[] | null): Map<number, RecordEntry> | null {
  if (records === null) return null
  const map = new Map<number, RecordEntry>()
  for (const record of records) map.set(record.offset, record)
  return map
}

function cell(
  offset: number,
  lane: LaneInput,
  records: Map<number, RecordEntry> | null,
  atRisk: boolean,
  removed: RecordEntry | null,
  gapAtRisk = false,
): LogCell {
  const extent = lane.extent
  const record = records?.get(offset) ?? null
  if (record !== null) return { offset, record, empty: null, atRisk, removed }
  let empty: EmptyReason
  if (extent === null) empty = 'loading'
  else if (offset < extent.logStartOffset) empty = 'beforeLogStart'
  else if (offset >= extent.logEndOffset) empty = 'beyondLogEnd'
  else if (offset >= extent.highWatermark) empty = 'aboveHighWatermark'
  else if (records === null || (lane.recordsEndOffset !== undefined && offset >= lane.recordsEndOffset) || (lane.recordsFromOffset !== undefined && offset < lane.recordsFromOffset)) empty = 'loading'
  else empty = 'noRecord'
  // The destination's empty tail over the source's at-risk range is the hatched gap of the sketch.
  return { offset, record: null, empty, atRisk: atRisk || (gapAtRisk && empty === 'beyondLogEnd'), removed }
}

function lineAt(offset: number | null, first: number, last: number): number | null {
  if (offset === null || offset < first || offset > last) return null
  return offset - first
}

/** How a record type looks on the tape: a glyph (shape) and a tone, never colour alone. */
export const RECORD_LOOK = {
  DATA: { glyph: '▪', label: 'data', tone: 'neutral' },
  COMMIT: { glyph: '✓', label: 'COMMIT', tone: 'healthy' },
  ABORT: { glyph: '✕', label: 'ABORT', tone: 'danger' },
  MIRROR_PID_RESET: { glyph: '⟲', label: 'PID reset', tone: 'done' },
  CONTROL: { glyph: '◇', label: 'control', tone: 'progress' },
} as const satisfies Record<RecordEntry['type'], { glyph: string; label: string; tone: string }>

/** What a DATA cell prints: `key=value` as the KIP's tables write it, or the value alone. */
export function recordContent(record: RecordEntry): string {
  if (record.type !== 'DATA') return RECORD_LOOK[record.type].label
  if (record.encoding === 'base64') return 'binary'
  if (record.key === null) return record.value ?? 'null'
  return `${record.key}=${record.value ?? 'null'}`
}

/** One sentence for a cell's accessible name and hover title. */
export function describeCell(lane: 'source' | 'destination', cell: LogCell, mirroredOffset: number | null): string {
  const parts = [`${lane} offset ${cell.offset}`]
  const record = cell.record
  if (record !== null) {
    parts.push(record.type === 'DATA' ? `DATA ${recordContent(record)}` : record.type)
    parts.push(record.producerId === null ? 'no producer id' : `producer ${record.producerId} epoch ${record.producerEpoch ?? '–'}`)
    parts.push(`leader epoch ${record.leaderEpoch}`)
    if (record.transactional && record.type === 'DATA') parts.push('transactional')
  } else {
    parts.push(EMPTY_TEXT[cell.empty ?? 'noRecord'])
  }
  if (lane === 'source' && cell.atRisk) parts.push('at risk: not mirrored')
  else if (lane === 'source' && record !== null && mirroredOffset !== null && cell.offset < mirroredOffset) parts.push('mirrored')
  if (lane === 'destination' && cell.atRisk) parts.push('missing here: at risk on the source')
  if (cell.removed !== null) parts.push(`removed by truncation: ${cell.removed.type === 'DATA' ? recordContent(cell.removed) : cell.removed.type}`)
  return parts.join(', ')
}

export const EMPTY_TEXT: Record<EmptyReason, string> = {
  loading: 'loading',
  beforeLogStart: 'before the log start (deleted)',
  beyondLogEnd: 'not written',
  aboveHighWatermark: 'above the high watermark (not readable yet)',
  noRecord: 'no record (compacted)',
}
