'use client'

import type { FailoverPlan } from '@/lib/api/mirrors'
import { describeRpo, describeRpoObjective } from '@/lib/failover/rpo'
import { planTotals } from '@/lib/failover/plan-totals'
import { plannedUnavailable, type FailoverType } from '@/lib/failover/wizard-states'
import { counted, formatDuration } from '@/lib/ui/format'

/**
 * Step 1 (issue #34): planned or unplanned, with the consequences side by side, read from the unplanned dry
 * run (what a failover now would lose). Planned is not offered when the source does not answer: it needs the
 * source to fence and drain.
 */
export function TypeStep({ plan, sourceCluster, type, onChoose }: { plan: FailoverPlan; sourceCluster: string; type: FailoverType | null; onChoose: (type: FailoverType) => void }) {
  const unavailable = plannedUnavailable(plan)
  const reachable = unavailable === null
  const totals = planTotals(plan.partitions)
  const atRisk = totals.recordsAtRisk === null ? 'an unknown number of records' : counted(totals.recordsAtRisk, 'record')
  const card = (chosen: boolean, disabled: boolean) =>
    `flex h-full flex-col gap-2 rounded-lg border p-4 ${disabled ? 'cursor-not-allowed border-slate-200 opacity-60 dark:border-slate-700' : 'cursor-pointer'} ${
      chosen ? 'border-indigo-500 bg-indigo-50/70 ring-1 ring-indigo-500 dark:border-indigo-400 dark:bg-indigo-950/40 dark:ring-indigo-400' : disabled ? '' : 'border-slate-300 hover:border-slate-400 dark:border-slate-600'
    }`
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm text-slate-700 dark:text-slate-300">Does this failover have to lose data? The type decides it.</legend>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <label className={card(type === 'planned', !reachable)} data-type="planned">
          <span className="flex items-center gap-2 font-semibold">
            <input type="radio" name="failover-type" value="planned" checked={type === 'planned'} disabled={!reachable} onChange={() => onChoose('planned')} className="size-4 accent-indigo-600" />
            Planned switchover
          </span>
          {reachable ? (
            <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700 dark:text-slate-300">
              <li>
                Writes to the mirror&apos;s topics on <span className="font-mono">{sourceCluster}</span> are refused (TOPIC_WRITE_FENCED) while the mirror drains: about as long as the lag
                {totals.maxTimeAtRiskMs !== null ? ` (now ${formatDuration(totals.maxTimeAtRiskMs)})` : ''}, at most 2 minutes.
              </li>
              <li className="font-medium text-emerald-800 dark:text-emerald-300">Nothing is lost: every record reaches the destination before the stop, measured at the end.</li>
              <li>Rolls back by itself (source writable again, mirroring as before) if it cannot drain in time, or when you cancel it.</li>
            </ul>
          ) : (
            <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="planned-unavailable">
              Not offered: {unavailable}.
            </p>
          )}
        </label>
        <label className={card(type === 'unplanned', false)} data-type="unplanned">
          <span className="flex items-center gap-2 font-semibold">
            <input type="radio" name="failover-type" value="unplanned" checked={type === 'unplanned'} onChange={() => onChoose('unplanned')} className="size-4 accent-indigo-600" />
            Unplanned failover
          </span>
          <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700 dark:text-slate-300">
            <li>Immediate: the destination takes over with what it mirrored.</li>
            <li className={totals.recordsAtRisk === 0 ? '' : 'font-medium text-red-800 dark:text-red-300'}>
              Loses what is not mirrored yet: {atRisk} now{totals.maxTimeAtRiskMs !== null && totals.maxTimeAtRiskMs > 0 ? `, the oldest ${formatDuration(totals.maxTimeAtRiskMs)} old` : ''}; the impact step shows it per partition.
            </li>
            {plan.rpo !== undefined && (
              <li data-rpo-status={plan.rpo.status}>
                Recovery-point objective {describeRpoObjective(plan.rpo.objective)}:{' '}
                {plan.rpo.status === 'met' ? 'met' : plan.rpo.status === 'breached' ? `breached (${describeRpo(plan.rpo)}); you will have to type the loss you accept` : `cannot be checked (${describeRpo(plan.rpo)})`}.
              </li>
            )}
          </ul>
        </label>
      </div>
    </fieldset>
  )
}
