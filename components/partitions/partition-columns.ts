import type { SortColumn } from '@/lib/ui/partition-table'

/** The table's columns, in order, with the header text and how wide each may be (CSS grid tracks). */
export const PARTITION_COLUMNS: ReadonlyArray<{ column: SortColumn; label: string; track: string; numeric?: boolean; title?: string }> = [
  { column: 'topic', label: 'Topic', track: 'minmax(8rem,1.2fr)' },
  { column: 'partition', label: 'Partition', track: '5.5rem', numeric: true },
  { column: 'state', label: 'State and reason', track: 'minmax(15rem,2fr)', title: 'The state; for a FAILED partition, why, and when the engine retries' },
  { column: 'offsetLag', label: 'Offset lag', track: '7rem', numeric: true, title: 'Records the destination high watermark is behind the source' },
  { column: 'timeLagMs', label: 'Time lag', track: '8rem', numeric: true, title: 'Age of the oldest source record not yet mirrored' },
  { column: 'destinationHighWatermark', label: 'Mirrored to', track: '7.5rem', numeric: true, title: 'Destination high watermark: offsets mirrored and replicated (as of the last refresh)' },
  { column: 'freshness', label: 'Freshness', track: '7rem', numeric: true, title: 'Time since the last successful fetch from the source (as of the last refresh)' },
  { column: 'destinationLeaderEpoch', label: 'Leader epoch', track: '7.5rem', numeric: true, title: 'Leader epoch of the destination partition' },
  { column: 'lastTruncation', label: 'Last truncation', track: 'minmax(9rem,1.2fr)', title: 'Where the destination log was last truncated, and how many records it lost' },
]

export const GRID_TEMPLATE = PARTITION_COLUMNS.map((entry) => entry.track).join(' ')

/**
 * Row heights in pixels: one line on wide screens, a two-line card on narrow ones, taller for a FAILED card (its
 * reason and Retry now need a line more), and for a wide FAILED row with Retry now (its reason sits under the
 * button: in 40 px it touched the row's border). Known from the state, so nothing is measured.
 */
export const ROW_HEIGHT = { wide: 40, wideFailed: 52, narrow: 72, narrowFailed: 96 } as const

/** A mirroring partition that has not fetched for this long is marked stale. */
export const STALE_FETCH_MS = 30_000
