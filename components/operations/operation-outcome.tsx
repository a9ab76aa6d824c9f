'use client'

import { PartitionLinkCell } from '@/components/partitions/partition-link-cell'
import { useOperationReport } from '@/components/data/use-operation-report'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { StateBadge } from '@/components/ui/state-badge'
import type { OperationReport, ReportPartition } from '@/lib/api/operation-report'
import { formatCount, formatDuration, formatOffset, counted } from '@/lib/ui/format'

const ROW_LIMIT = 200
const QUIET_ROW_LIMIT = 20

function interesting(partition: ReportPartition): boolean {
  return partition.aborted.length > 0 || partition.error !== null || partition.state !== 'STOPPED'
}

/**
 * What a finished failover did, read back from the destination logs (the operation's report): the
 * transactions aborted where (ABORT offset, producer id and epoch), the PID reset offset, the final leader
 * epoch and how long each partition took.
 */
export function OperationOutcome({ id }: { id: string }) {
  const report = useOperationReport(id, true)
  if (report.isPending) return <Skeleton className="h-40 w-full" />
  if (report.isError) return <ErrorPanel error={report.error} title="Could not build the report" onRetry={() => void report.refetch()} />
  return <OutcomeTables report={report.data} />
}

function OutcomeTables({ report }: { report: OperationReport }) {
  const { totals } = report
  const rows = [...report.partitions].sort((a, b) => Number(interesting(b)) - Number(interesting(a)) || b.aborted.length - a.aborted.length)
  // Thousands of partitions that all ended the same way read better as a few rows and the totals above.
  const shown = rows.slice(0, rows.some(interesting) ? ROW_LIMIT : QUIET_ROW_LIMIT)
  const mirror = report.operation.mirror
  return (
    <div className="space-y-3">
      <ul className="flex flex-wrap gap-x-5 gap-y-1 text-sm">
        <li>
          <span className="font-semibold tabular-nums">{formatCount(totals.stopped)}</span> of {counted(totals.partitions, 'partition')} STOPPED
        </li>
        <li>
          <span className="font-semibold tabular-nums">{formatCount(totals.transactionsAborted)}</span> {totals.transactionsAborted === 1 ? 'transaction' : 'transactions'} aborted
          {totals.producersAborted.length > 0 && (
            <>
              {' '}
              (producers <span className="font-mono">{totals.producersAborted.slice(0, 8).join(', ')}</span>
              {totals.producersAborted.length > 8 ? ` and ${totals.producersAborted.length - 8} more` : ''})
            </>
          )}
        </li>
        {totals.failed > 0 && (
          <li className="text-red-800 dark:text-red-300">
            ✕ <span className="font-semibold tabular-nums">{formatCount(totals.failed)}</span> failed
          </li>
        )}
      </ul>
      <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-700">
        <table className="w-full min-w-[40rem] text-left text-sm">
          <caption className="px-3 py-2 text-left text-xs text-slate-600 dark:text-slate-400">
            Per partition, from the destination log{rows.length > shown.length ? ` (the first ${shown.length} of ${rows.length}; the report lists all)` : ''}
          </caption>
          <thead className="bg-slate-50 text-xs text-slate-600 uppercase dark:bg-slate-800 dark:text-slate-300">
            <tr>
              <th scope="col" className="px-3 py-2">Partition</th>
              <th scope="col" className="px-3 py-2">State</th>
              <th scope="col" className="px-3 py-2">Aborted (offset · producer)</th>
              <th scope="col" className="px-3 py-2 text-right">PID reset at</th>
              <th scope="col" className="px-3 py-2 text-right">Leader epoch</th>
              <th scope="col" className="px-3 py-2 text-right">Took</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {shown.map((partition) => (
              <tr key={`${partition.topic}-${partition.partition}`} data-partition={`${partition.topic}-${partition.partition}`}>
                <PartitionLinkCell mirror={mirror} topic={partition.topic} partition={partition.partition} />
                <td className="px-3 py-2">
                  <StateBadge state={partition.state} size="sm" />
                  {partition.error !== null && <p className="mt-1 text-xs break-words text-red-800 dark:text-red-300">{partition.error}</p>}
                </td>
                <td className="px-3 py-2">
                  {partition.aborted.length === 0 ? (
                    <span className="text-slate-600 dark:text-slate-400">none</span>
                  ) : (
                    <ul className="space-y-0.5 font-mono text-xs">
                      {partition.aborted.map((marker) => (
                        <li key={marker.offset}>
                          ✕ ABORT at {formatOffset(marker.offset)} · pid {marker.producerId} · epoch {marker.producerEpoch}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{partition.pidResetOffset === null ? '–' : `⟲ ${formatOffset(partition.pidResetOffset)}`}</td>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{partition.finalLeaderEpoch}</td>
                <td className="px-3 py-2 text-right tabular-nums">{partition.durationMs === null ? '–' : formatDuration(partition.durationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
