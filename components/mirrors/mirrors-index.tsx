'use client'

import Link from 'next/link'
import { useMemo, useState } from 'react'
import { useMirrors } from '@/components/data/use-mirrors'
import { useOperations } from '@/components/data/use-operations'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import { StatusBadge } from '@/components/ui/status-badge'
import { clockTime, formatBytes, formatRate } from '@/lib/ui/format'
import { mirrorLagText } from '@/lib/ui/lag-text'
import { DEFAULT_MIRROR_SORT, matchedTopics, mirrorIndexRows, nextMirrorSort, searchMirrors, sortMirrors, type MirrorIndexRow, type MirrorSort, type MirrorSortColumn } from '@/lib/ui/mirror-index'
import { STATES_BY_SEVERITY } from '@/lib/ui/state-style'
import { OPERATION_STATUS_STYLE, RPO_STATUS_STYLE } from '@/lib/ui/status-style'
import type { MirrorSummary } from '@/lib/api/mirrors'
import { describeRpo, describeRpoObjective } from '@/lib/failover/rpo'
import { requesterName } from '@/lib/ui/requester-name'

const COLUMNS: ReadonlyArray<{ column: MirrorSortColumn | null; label: string; numeric?: boolean }> = [
  { column: 'name', label: 'Mirror' },
  { column: 'state', label: 'Partitions' },
  { column: 'lag', label: 'Lag', numeric: true },
  { column: null, label: 'RPO' },
  { column: 'throughput', label: 'Throughput', numeric: true },
  { column: 'lastFailover', label: 'Last failover' },
]

/** A cell: a column on a wide screen, a labelled line of the mirror's card on a phone. */
const CELL =
  'px-3 py-2 align-top max-sm:grid max-sm:grid-cols-[7.5rem_minmax(0,1fr)] max-sm:gap-2 max-sm:py-1 max-sm:before:text-xs max-sm:before:font-medium max-sm:before:text-slate-600 max-sm:before:content-[attr(data-label)] dark:max-sm:before:text-slate-400'

/**
 * /mirrors: every mirror with its state counts, lag (honest when a source is silent, lib/ui/lag-text.ts),
 * throughput and last failover; sortable by each, searchable across mirror names, clusters and topics.
 */
export function MirrorsIndex() {
  const mirrors = useMirrors()
  const operations = useOperations()
  const [sort, setSort] = useState<MirrorSort>(DEFAULT_MIRROR_SORT)
  const [search, setSearch] = useState('')
  const rows = useMemo(
    () => (mirrors.data === undefined ? [] : sortMirrors(searchMirrors(mirrorIndexRows(mirrors.data.mirrors, operations.data?.operations ?? []), search), sort)),
    [mirrors.data, operations.data, search, sort],
  )
  const total = mirrors.data?.mirrors.length
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Mirrors</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
          {total === undefined ? 'Every mirror, worst first.' : `${total} ${total === 1 ? 'mirror' : 'mirrors'}, worst state first; select a column to sort.`}
        </p>
      </div>
      <Panel
        id="mirrors"
        title="All mirrors"
        actions={
          <label className="flex w-full items-center gap-2 text-sm sm:w-auto">
            <span className="text-slate-600 dark:text-slate-300">Search</span>
            <input
              type="search"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
              placeholder="mirror, cluster or topic"
              className="min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm sm:w-64 dark:border-slate-600 dark:bg-slate-800"
            />
          </label>
        }
      >
        {mirrors.error !== null && mirrors.data === undefined ? (
          <ErrorPanel error={mirrors.error} title="Could not load the mirrors" onRetry={() => void mirrors.refetch()} />
        ) : mirrors.data === undefined ? (
          <div className="space-y-2" aria-busy="true">
            <Skeleton className="h-10 w-full" />
            <Skeleton className="h-10 w-full" />
          </div>
        ) : total === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">
            No mirror yet. <Link prefetch={false} href="/create/mirror" className="font-medium text-indigo-700 underline dark:text-indigo-300">Create one</Link>, or run the demo.
          </p>
        ) : rows.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300" role="status">
            No mirror, cluster or topic matches “{search}”.
          </p>
        ) : (
          <>
          <label className="mb-2 flex items-center gap-2 text-sm sm:hidden">
            <span className="text-slate-600 dark:text-slate-300">Sort by</span>
            <select
              value={`${sort.column}:${sort.direction}`}
              onChange={(event) => {
                const [column, direction] = event.target.value.split(':') as [MirrorSortColumn, 'asc' | 'desc']
                setSort({ column, direction })
              }}
              className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-800"
            >
              {COLUMNS.flatMap(({ column, label }) =>
                column === null
                  ? []
                  : [
                      <option key={`${column}:desc`} value={`${column}:desc`}>{`${label} ▼`}</option>,
                      <option key={`${column}:asc`} value={`${column}:asc`}>{`${label} ▲`}</option>,
                    ],
              )}
            </select>
          </label>
          <table className="w-full text-sm max-sm:block">
            <caption className="sr-only">Mirrors, sorted by {COLUMNS.find((entry) => entry.column === sort.column)?.label.toLowerCase()}</caption>
            <thead className="text-left text-xs text-slate-600 max-sm:sr-only dark:text-slate-400">
              <tr className="border-b border-slate-200 dark:border-slate-800">
                {COLUMNS.map(({ column, label, numeric }) => (
                  <th
                    key={label}
                    scope="col"
                    className={`px-3 py-2 font-medium ${numeric ? 'text-right' : ''}`}
                    aria-sort={column === sort.column ? (sort.direction === 'asc' ? 'ascending' : 'descending') : undefined}
                  >
                    {column === null ? (
                      label
                    ) : (
                      <button type="button" onClick={() => setSort((current) => nextMirrorSort(current, column))} className="inline-flex items-center gap-1 rounded hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:text-white">
                        {label}
                        <span aria-hidden>{column === sort.column ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}</span>
                      </button>
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 max-sm:block dark:divide-slate-800">
              {rows.map((row) => (
                <MirrorIndexLine key={row.mirror.name} row={row} search={search} />
              ))}
            </tbody>
          </table>
          </>
        )}
      </Panel>
    </div>
  )
}

function MirrorIndexLine({ row, search }: { row: MirrorIndexRow; search: string }) {
  const { mirror } = row
  const lag = mirrorLagText({ ...mirror, partitions: row.partitions })
  const matched = matchedTopics(row, search)
  const throughput = mirror.throughput
  return (
    <tr data-mirror={mirror.name} className="max-sm:block max-sm:py-2">
      <td className="px-3 py-2 align-top max-sm:block max-sm:py-1">
        <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror.name)}`} className="font-mono font-medium break-all text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
          {mirror.name}
        </Link>
        <span className="block text-xs text-slate-600 dark:text-slate-400">
          {mirror.sourceCluster} <span aria-label="to">→</span> {mirror.destinationCluster} · {mirror.topics.length} {mirror.topics.length === 1 ? 'topic' : 'topics'}
          {matched.length > 0 && <span className="block font-mono">topics: {matched.join(', ')}</span>}
        </span>
      </td>
      <td data-label="Partitions" className={CELL}>
        <span className="flex flex-wrap gap-1">
          {row.partitions === 0 ? (
            <span className="text-xs text-slate-500 dark:text-slate-400">none yet</span>
          ) : (
            STATES_BY_SEVERITY.filter((state) => (mirror.partitionsByState[state] ?? 0) > 0).map((state) => <StateBadge key={state} state={state} count={mirror.partitionsByState[state]} size="sm" />)
          )}
        </span>
      </td>
      <td data-label="Lag" className={`${CELL} whitespace-nowrap tabular-nums sm:text-right`} title={lag.exact} data-lower-bound={lag.lowerBound || undefined}>
        {lag.shown}
      </td>
      <td data-label="RPO" className={CELL}>
        <RpoCell objectives={mirror.objectives ?? null} partitionsByState={mirror.partitionsByState} />
      </td>
      <td data-label="Throughput" className={`${CELL} whitespace-nowrap tabular-nums sm:text-right`}>
        {throughput === undefined || throughput.recordsPerSecond === null ? (
          <span className="text-slate-500 dark:text-slate-400">–</span>
        ) : (
          <span title={`${throughput.recordsPerSecond.toFixed(1)} records/s, ${formatBytes(throughput.bytesPerSecond ?? 0)}/s over the last 10 s`}>
            {formatRate(throughput.recordsPerSecond)} rec/s
            <span className="block text-xs text-slate-500 dark:text-slate-400">{formatBytes(throughput.bytesPerSecond ?? 0)}/s</span>
          </span>
        )}
      </td>
      <td data-label="Last failover" className={CELL}>
        {row.lastFailover === null ? (
          <span className="text-slate-500 dark:text-slate-400">never</span>
        ) : (
          <span className="flex flex-wrap items-center gap-1.5">
            <Link prefetch={false} href={`/operations/${encodeURIComponent(row.lastFailover.id)}`} className="rounded hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500">
              <RelativeTime at={row.lastFailover.startedAt} />
            </Link>
            <span className="text-xs whitespace-nowrap text-slate-500 tabular-nums dark:text-slate-400">{clockTime(row.lastFailover.startedAt)} UTC</span>
            <StatusBadge look={OPERATION_STATUS_STYLE[row.lastFailover.status]} />
            {row.lastFailover.requestedBy !== null && <span className="text-xs text-slate-500 dark:text-slate-400">by {requesterName(row.lastFailover.requestedBy)}</span>}
          </span>
        )}
      </td>
    </tr>
  )
}

/** The RPO objective and the recovery point against it now; unknown (a source silent) reads as such, never as met. */
function RpoCell({ objectives, partitionsByState }: { objectives: MirrorSummary['objectives']; partitionsByState: MirrorSummary['partitionsByState'] }) {
  if (objectives == null) {
    // A failed-over mirror carries no RPO status whatever its objective: it no longer protects anything.
    const counts = Object.entries(partitionsByState)
    const failedOver = counts.length > 0 && counts.every(([state, count]) => state === 'STOPPED' || state === 'STOPPING' || (count ?? 0) === 0)
    return <span className="text-slate-500 dark:text-slate-400">{failedOver ? 'failed over: nothing to protect' : 'no objective'}</span>
  }
  const objective = describeRpoObjective({ ...(objectives.rpoRecords === null ? {} : { rpoRecords: objectives.rpoRecords }), ...(objectives.rpoSeconds === null ? {} : { rpoSeconds: objectives.rpoSeconds }) })
  return (
    <span className="flex flex-wrap items-center gap-x-1.5 gap-y-0.5" title={`Now ${describeRpo(objectives)} at risk`}>
      <StatusBadge look={RPO_STATUS_STYLE[objectives.status]} data-rpo-status={objectives.status} />
      <span className="text-xs whitespace-nowrap text-slate-500 dark:text-slate-400">{objective}</span>
    </span>
  )
}
