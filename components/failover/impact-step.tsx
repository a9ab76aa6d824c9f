'use client'

import { PartitionLinkCell } from '@/components/partitions/partition-link-cell'
import type { FailoverPlan } from '@/lib/api/mirrors'
import { byImpact, hasImpact, planTotals } from '@/lib/failover/plan-totals'
import { describeRpo, describeRpoObjective } from '@/lib/failover/rpo'
import { formatCount, formatDuration, formatOffset } from '@/lib/ui/format'
import { asOfText, countText, durationText } from '@/lib/ui/lag-text'
import { StateBadge } from '@/components/ui/state-badge'
import { Figure } from './figure'

/**
 * A cell of the impact table: a column on a wide screen; on a phone a line of its partition's card, named
 * by its column's header (`data-label`; the header row stays for screen readers).
 */
const STACKED_CELL =
  'px-3 py-2 max-sm:grid max-sm:grid-cols-[8.5rem_minmax(0,1fr)] max-sm:gap-2 max-sm:py-1 max-sm:before:text-xs max-sm:before:font-sans max-sm:before:font-medium max-sm:before:text-slate-600 max-sm:before:content-[attr(data-label)] dark:max-sm:before:text-slate-400'

/** Rows of the per-partition table: enough to read, not 10,000 DOM rows. */
const ROW_LIMIT = 200

/**
 * Step 3: what the failover will cost, totals first (records at risk, how old, transactions to abort),
 * then the partitions with any impact, worst first: records at risk as offsets and time, each transaction
 * to abort (producer id, epoch, first offset), consumer groups behind, FAILED partitions it forces.
 */
export function ImpactStep({ plan, mirror }: { plan: FailoverPlan; mirror: string }) {
  const totals = planTotals(plan.partitions)
  const impacted = plan.partitions.filter(hasImpact).sort(byImpact)
  const shown = impacted.slice(0, ROW_LIMIT)
  return (
    <div className="space-y-4">
      {plan.type === 'planned' && (
        <p className="rounded-lg border border-emerald-200 bg-emerald-50 p-3 text-sm text-emerald-950 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-100" data-impact="planned">
          ✓ Planned: the records at risk now are copied while the source is fenced, before any partition stops; the switchover measures what it lost at the end, and it must be 0.
          Open transactions get {Math.round((plan.switchover?.transactionGraceMs ?? 30_000) / 1000)} s to commit on the source, then the source aborts them itself.
        </p>
      )}
      {plan.type !== 'planned' && plan.rpo !== undefined && (
        <p
          data-rpo-status={plan.rpo.status}
          className={`rounded-lg border p-3 text-sm ${plan.rpo.status === 'met' ? 'border-slate-200 dark:border-slate-700' : 'border-red-300 bg-red-50/60 text-red-950 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100'}`}
        >
          {plan.rpo.status === 'met' ? '✓' : '✕'} Recovery point: a failover now loses {describeRpo(plan.rpo)}; the objective is {describeRpoObjective(plan.rpo.objective)}
          {plan.rpo.status === 'met' ? ' (met).' : plan.rpo.status === 'breached' ? ' (breached).' : ' (cannot be checked while the source is silent).'}
        </p>
      )}
      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Figure
          label="Records at risk"
          tone={totals.atRisk.records === null || totals.atRisk.records > 0 || !totals.atRisk.known ? 'danger' : 'neutral'}
          value={countText({ value: totals.atRisk.records, known: totals.atRisk.known })}
          title={totals.atRisk.records === null ? undefined : `${totals.atRisk.known ? '' : 'at least '}${totals.atRisk.records} records`}
          detail={
            totals.atRisk.records === null
              ? 'a partition has never had a fetch answered'
              : totals.atRisk.known
                ? `in ${totals.partitionsWithRecordsAtRisk} of ${totals.partitionsToStop} partitions; lost for destination readers`
                : `at least: the source did not answer, figures from the mirror's last fetch ${asOfText(false, totals.atRisk.asOf)}`
          }
        />
        <Figure
          label="Oldest record at risk"
          tone={totals.atRisk.timeMs !== null && totals.atRisk.timeMs > 0 ? 'warning' : 'neutral'}
          value={durationText({ value: totals.atRisk.timeMs, known: totals.atRisk.known })}
          detail={totals.atRisk.known ? 'written on the source, never mirrored' : 'at least, and growing while the source is silent'}
        />
        <Figure
          label="Transactions to abort"
          tone={totals.transactionsToAbort > 0 ? 'warning' : 'neutral'}
          value={formatCount(totals.transactionsToAbort)}
          title={`${totals.transactionsToAbort} transactions`}
          detail={
            totals.producersToAbort.length === 0
              ? 'none open on the destination'
              : `producers ${totals.producersToAbort.slice(0, 6).join(', ')}${totals.producersToAbort.length > 6 ? ` and ${totals.producersToAbort.length - 6} more` : ''}`
          }
        />
      </dl>
      <ul className="flex flex-wrap gap-x-5 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
        <li>
          <span className="font-semibold tabular-nums">{formatCount(totals.partitionsToStop)}</span> {totals.partitionsToStop === 1 ? 'partition' : 'partitions'} will stop
        </li>
        {totals.partitionsAlreadyStopped > 0 && (
          <li>
            <span className="font-semibold tabular-nums">{formatCount(totals.partitionsAlreadyStopped)}</span> already STOPPED (left as they are)
          </li>
        )}
        <li>
          <span className="font-semibold tabular-nums">{totals.consumerGroupsBehind.length}</span>{' '}
          {totals.consumerGroupsBehind.length === 1 ? 'consumer group resumes' : 'consumer groups resume'} behind their source position
        </li>
        {totals.failedPartitionsForced > 0 && (
          <li className="text-red-800 dark:text-red-300">
            ✕ <span className="font-semibold tabular-nums">{totals.failedPartitionsForced}</span> FAILED{' '}
            {totals.failedPartitionsForced === 1 ? 'partition stops' : 'partitions stop'} with what {totals.failedPartitionsForced === 1 ? 'it' : 'they'} mirrored
          </li>
        )}
      </ul>
      {impacted.length === 0 ? (
        <p className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700">✓ No partition loses records, has an open transaction or a consumer group behind.</p>
      ) : (
        // Below 640 px each partition is a stacked card, every value under its column's name: a six-column
        // table scrolled sideways inside its frame on a phone, the transactions out of sight.
        <div className="rounded-lg border border-slate-200 sm:overflow-x-auto dark:border-slate-700">
          <table className="w-full text-left text-sm max-sm:block sm:min-w-[44rem]">
            <caption className="px-3 py-2 text-left text-xs text-slate-600 max-sm:block dark:text-slate-400">
              Partitions with an impact, most records at risk first
              {impacted.length > shown.length ? ` (the first ${shown.length} of ${impacted.length}; the report lists all)` : ''}
            </caption>
            <thead className="bg-slate-50 text-xs text-slate-600 uppercase max-sm:sr-only dark:bg-slate-800 dark:text-slate-300">
              <tr>
                <th scope="col" className="px-3 py-2">Partition</th>
                <th scope="col" className="px-3 py-2">State</th>
                <th scope="col" className="px-3 py-2 text-right">Mirrored to</th>
                <th scope="col" className="px-3 py-2">Records at risk</th>
                <th scope="col" className="px-3 py-2">Transactions to abort</th>
                <th scope="col" className="px-3 py-2">Groups behind</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 max-sm:block dark:divide-slate-800">
              {shown.map((partition) => (
                <tr key={`${partition.topic}-${partition.partition}`} data-partition={`${partition.topic}-${partition.partition}`} className="max-sm:block max-sm:py-1">
                  <PartitionLinkCell mirror={mirror} topic={partition.topic} partition={partition.partition} className="max-sm:block max-sm:pb-1 max-sm:font-semibold" />
                  <td data-label="State" className={STACKED_CELL}>
                    <StateBadge state={partition.state} size="sm" />
                  </td>
                  <td data-label="Mirrored to" className={`${STACKED_CELL} font-mono tabular-nums sm:text-right`}>
                    {formatOffset(partition.mirroredOffset)}
                  </td>
                  <td data-label="Records at risk" className={STACKED_CELL}>
                    {partition.recordsAtRisk === null ? (
                      partition.atRisk !== undefined && partition.atRisk.records !== null ? (
                        <span title={`at least: the source did not answer; from the mirror's last fetch ${asOfText(false, partition.atRisk.asOf)}`}>
                          <span className="font-semibold tabular-nums">{countText({ value: partition.atRisk.records, known: partition.atRisk.known })}</span>
                          {partition.atRisk.timeMs !== null && <span className="text-xs whitespace-nowrap text-slate-600 dark:text-slate-400"> · {durationText({ value: partition.atRisk.timeMs, known: partition.atRisk.known })}</span>}
                        </span>
                      ) : (
                        'unknown'
                      )
                    ) : partition.recordsAtRisk === 0 ? (
                      <span className="text-slate-600 dark:text-slate-400">none</span>
                    ) : (
                      <span>
                        <span className="font-semibold tabular-nums">{formatCount(partition.recordsAtRisk)}</span>{' '}
                        <span className="font-mono text-xs">
                          (offsets {formatOffset(partition.mirroredOffset)}–{formatOffset((partition.sourceLogEndOffset ?? partition.mirroredOffset) - 1)})
                        </span>
                        {partition.timeAtRiskMs !== null && <span className="text-xs whitespace-nowrap text-slate-600 dark:text-slate-400"> · {formatDuration(partition.timeAtRiskMs)}</span>}
                      </span>
                    )}
                  </td>
                  <td data-label="Transactions to abort" className={STACKED_CELL}>
                    {partition.transactionsToAbort.length === 0 ? (
                      <span className="text-slate-600 dark:text-slate-400">none</span>
                    ) : (
                      <ul className="space-y-0.5 font-mono text-xs">
                        {partition.transactionsToAbort.map((transaction) => (
                          <li key={`${transaction.producerId}-${transaction.firstOffset}`}>
                            ✕ pid {transaction.producerId} · epoch {transaction.producerEpoch} · from {formatOffset(transaction.firstOffset)}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td data-label="Groups behind" className={STACKED_CELL}>
                    {partition.consumerGroupsBehind.length === 0 ? (
                      <span className="text-slate-600 dark:text-slate-400">none</span>
                    ) : (
                      <ul className="space-y-0.5 text-xs">
                        {partition.consumerGroupsBehind.map((group) => (
                          <li key={group.groupId}>
                            <span className="font-mono">{group.groupId}</span> resumes at {group.committedOffset === null ? 'its reset policy' : formatOffset(group.committedOffset)}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
