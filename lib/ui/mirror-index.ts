/**
 * The Mirrors index page as data: one row per mirror (worst state, lag as lib/ui/lag-text.ts says it, throughput,
 * last failover), sorted by a column and searched across mirror names, clusters and topics. Pure.
 */
import type { MirrorSummary } from '../api/mirrors'
import type { Operation } from '../api/operations'
import type { MirrorPartitionState } from '../mirror/states'
import { STATE_STYLE, worstState } from './state-style'

export const MIRROR_SORT_COLUMNS = ['name', 'state', 'lag', 'throughput', 'lastFailover'] as const
export type MirrorSortColumn = (typeof MIRROR_SORT_COLUMNS)[number]
export interface MirrorSort {
  readonly column: MirrorSortColumn
  readonly direction: 'asc' | 'desc'
}

export const DEFAULT_MIRROR_SORT: MirrorSort = { column: 'state', direction: 'desc' }

export interface MirrorIndexRow {
  readonly mirror: MirrorSummary
  readonly partitions: number
  readonly worst: MirrorPartitionState | null
  /** The last failover of this mirror that ran (any outcome); null when none did. */
  readonly lastFailover: Pick<Operation, 'id' | 'status' | 'startedAt' | 'finishedAt' | 'requestedBy'> | null
}

export function mirrorIndexRows(mirrors: readonly MirrorSummary[], operations: readonly Operation[]): MirrorIndexRow[] {
  const last = new Map<string, Operation>()
  for (const operation of operations) {
    if (operation.kind !== 'failover') continue
    const seen = last.get(operation.mirror)
    if (seen === undefined || operation.startedAt > seen.startedAt) last.set(operation.mirror, operation)
  }
  return mirrors.map((mirror) => ({
    mirror,
    partitions: Object.values(mirror.partitionsByState).reduce<number>((sum, count) => sum + (count ?? 0), 0),
    worst: worstState(mirror.partitionsByState),
    lastFailover: last.get(mirror.name) ?? null,
  }))
}

const RPO_RANK = { met: 0, unknown: 1, breached: 2 } as const
const RPO_RANKS = 3

/** What a column sorts by; null (unknown, never) sorts last whichever the direction. */
function sortValue(row: MirrorIndexRow, column: MirrorSortColumn): number | string | null {
  switch (column) {
    case 'name':
      return row.mirror.name
    case 'state':
      // Within one worst state, a mirror over its RPO objective is worse than one within it (and an unknown
      // recovery point worse than a met one): an RPO-breached MIRRORING mirror sorted below calm ones before.
      return row.worst === null ? null : STATE_STYLE[row.worst].severity * RPO_RANKS + RPO_RANK[row.mirror.objectives?.status ?? 'met']
    case 'lag':
      // A mirror whose lag is a lower bound sorts as at least its figure; an unknown one last.
      return row.mirror.maxTimeLagMs
    case 'throughput':
      return row.mirror.throughput?.recordsPerSecond ?? null
    case 'lastFailover':
      return row.lastFailover?.startedAt ?? null
  }
}

export function sortMirrors(rows: readonly MirrorIndexRow[], sort: MirrorSort): MirrorIndexRow[] {
  const sign = sort.direction === 'asc' ? 1 : -1
  return [...rows].sort((a, b) => {
    const left = sortValue(a, sort.column)
    const right = sortValue(b, sort.column)
    if (left !== right) {
      if (left === null) return 1
      if (right === null) return -1
      return sign * (left < right ? -1 : 1)
    }
    return a.mirror.name < b.mirror.name ? -1 : a.mirror.name > b.mirror.name ? 1 : 0
  })
}

/** Every word must appear in the mirror's name, its clusters or one of its topics (case-insensitive). */
export function searchMirrors(rows: readonly MirrorIndexRow[], text: string): MirrorIndexRow[] {
  const words = text.trim().toLowerCase().split(/\s+/).filter((word) => word !== '')
  if (words.length === 0) return [...rows]
  return rows.filter((row) => {
    const haystack = [row.mirror.name, row.mirror.sourceCluster, row.mirror.destinationCluster, ...row.mirror.topics].join('\n').toLowerCase()
    return words.every((word) => haystack.includes(word))
  })
}

/** The topics of a mirror a search matched, to show why it was kept ("orders" found in topic "orders-eu"). */
export function matchedTopics(row: MirrorIndexRow, text: string, limit = 3): string[] {
  const words = text.trim().toLowerCase().split(/\s+/).filter((word) => word !== '')
  if (words.length === 0) return []
  return row.mirror.topics.filter((topic) => words.some((word) => topic.toLowerCase().includes(word))).slice(0, limit)
}

export function nextMirrorSort(current: MirrorSort, column: MirrorSortColumn): MirrorSort {
  if (current.column === column) return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' }
  return { column, direction: column === 'name' ? 'asc' : 'desc' }
}
