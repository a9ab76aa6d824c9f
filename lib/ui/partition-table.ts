/**
 * The mirror page's partition table as pure functions: which rows a filter keeps, in which order a sort puts
 * them, the state counts shown on the filter chips, and whether a live change can move a row in the current
 * view (so a tick that changes nothing the view depends on costs no re-sort of 10,000 rows).
 */
import type { MirrorPartition } from '../api/mirrors'
import { MIRROR_PARTITION_STATES, type MirrorPartitionState } from '../mirror/states'
import { STATE_STYLE } from './state-style'

export type PartitionRow = MirrorPartition

export const SORT_COLUMNS = ['topic', 'partition', 'state', 'offsetLag', 'timeLagMs', 'destinationHighWatermark', 'freshness', 'destinationLeaderEpoch', 'lastTruncation'] as const
export type SortColumn = (typeof SORT_COLUMNS)[number]
export type SortDirection = 'asc' | 'desc'

export interface PartitionSort {
  readonly column: SortColumn
  readonly direction: SortDirection
}

export interface PartitionFilter {
  /** Empty: every state. */
  readonly states: ReadonlySet<MirrorPartitionState>
  /** null: every topic. */
  readonly topic: string | null
  /** Keep rows whose offset lag is above this many records; null: any lag (also unknown). */
  readonly minOffsetLag: number | null
  /** Words that must all appear in "topic/partition topic-partition STATE error". */
  readonly text: string
}

export const DEFAULT_SORT: PartitionSort = { column: 'topic', direction: 'asc' }

export const NO_FILTER: PartitionFilter = { states: new Set(), topic: null, minOffsetLag: null, text: '' }

/** The key of a partition in stores and views; topic names cannot hold '/'. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}/${partition}`
}

/** What a column sorts by; null sorts last whatever the direction (unknown is never "smallest lag"). */
function sortValue(row: PartitionRow, column: SortColumn): number | string | null {
  switch (column) {
    case 'topic':
      return row.topic
    case 'partition':
      return row.partition
    case 'state':
      return STATE_STYLE[row.state].severity
    case 'offsetLag':
      return row.offsetLag
    case 'timeLagMs':
      return row.timeLagMs
    case 'destinationHighWatermark':
      return row.destinationHighWatermark
    // Older fetch first when ascending would read backwards: freshness is "time since", so the newest
    // fetch is the smallest freshness.
    case 'freshness':
      return row.lastFetchAt === null ? null : -row.lastFetchAt
    case 'destinationLeaderEpoch':
      return row.destinationLeaderEpoch
    case 'lastTruncation':
      return row.lastTruncation === null ? null : row.lastTruncation.at
  }
}

function compareByName(a: PartitionRow, b: PartitionRow): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition
}

/** A comparator for `sort`: ties (and the topic column itself) fall back to topic then partition, ascending. */
export function comparePartitions(sort: PartitionSort): (a: PartitionRow, b: PartitionRow) => number {
  const sign = sort.direction === 'asc' ? 1 : -1
  if (sort.column === 'topic') return (a, b) => sign * compareByName(a, b)
  return (a, b) => {
    const left = sortValue(a, sort.column)
    const right = sortValue(b, sort.column)
    if (left !== right) {
      if (left === null) return 1
      if (right === null) return -1
      return sign * (left < right ? -1 : 1)
    }
    return compareByName(a, b)
  }
}

function searchWords(text: string): string[] {
  return text.trim().toLowerCase().split(/\s+/).filter((word) => word !== '')
}

function matchesWords(row: PartitionRow, words: readonly string[]): boolean {
  if (words.length === 0) return true
  const haystack = `${row.topic}/${row.partition} ${row.topic}-${row.partition} ${row.state} ${row.error ?? ''}`.toLowerCase()
  return words.every((word) => haystack.includes(word))
}

function matchesExceptState(row: PartitionRow, filter: PartitionFilter, words: readonly string[]): boolean {
  if (filter.topic !== null && row.topic !== filter.topic) return false
  if (filter.minOffsetLag !== null && (row.offsetLag === null || row.offsetLag <= filter.minOffsetLag)) return false
  return matchesWords(row, words)
}

export function matchesFilter(row: PartitionRow, filter: PartitionFilter): boolean {
  if (filter.states.size > 0 && !filter.states.has(row.state)) return false
  return matchesExceptState(row, filter, searchWords(filter.text))
}

/** The rows a filter keeps, in the order a sort gives them. */
export function selectPartitions(rows: Iterable<PartitionRow>, filter: PartitionFilter, sort: PartitionSort): PartitionRow[] {
  const words = searchWords(filter.text)
  const kept: PartitionRow[] = []
  for (const row of rows) {
    if (filter.states.size > 0 && !filter.states.has(row.state)) continue
    if (matchesExceptState(row, filter, words)) kept.push(row)
  }
  return kept.sort(comparePartitions(sort))
}

/**
 * Rows per state under every filter but the state one, so each chip says how many rows picking it would
 * show. Every state is present (0 when none).
 */
export function countByState(rows: Iterable<PartitionRow>, filter: PartitionFilter): Record<MirrorPartitionState, number> {
  const words = searchWords(filter.text)
  const counts = Object.fromEntries(MIRROR_PARTITION_STATES.map((state) => [state, 0])) as Record<MirrorPartitionState, number>
  for (const row of rows) if (matchesExceptState(row, filter, words)) counts[row.state] += 1
  return counts
}

/** What a live update changed about rows: their state (partition events) or their lag (lag events). */
export type RowChange = 'state' | 'lag'

/**
 * Whether a change of this kind can add, remove or move a row in the view of `filter` and `sort`. When it
 * cannot, the view's order stands and only the visible rows redraw with their new values.
 */
export function viewDependsOn(change: RowChange, filter: PartitionFilter, sort: PartitionSort): boolean {
  if (change === 'state') return filter.states.size > 0 || sort.column === 'state' || filter.text.trim() !== ''
  return filter.minOffsetLag !== null || sort.column === 'offsetLag' || sort.column === 'timeLagMs'
}

/** The sort after a click on a column header: the same column flips, another starts descending for figures. */
export function nextSort(current: PartitionSort, column: SortColumn): PartitionSort {
  if (current.column === column) return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' }
  const startsDescending = column === 'offsetLag' || column === 'timeLagMs' || column === 'state' || column === 'lastTruncation' || column === 'freshness'
  return { column, direction: startsDescending ? 'desc' : 'asc' }
}

/** Topics in the rows, sorted, with their partition counts (for the topic select). */
export function topicsOf(rows: Iterable<PartitionRow>): Array<{ topic: string; partitions: number }> {
  const counts = new Map<string, number>()
  for (const row of rows) counts.set(row.topic, (counts.get(row.topic) ?? 0) + 1)
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([topic, partitions]) => ({ topic, partitions }))
}
