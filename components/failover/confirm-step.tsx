'use client'

import { planTotals } from '@/lib/failover/plan-totals'
import type { FailoverPlan } from '@/lib/api/mirrors'
import { gateTitle } from '@/lib/failover/gate-forcing'
import { counted } from '@/lib/ui/format'

/**
 * Step 4: the irreversible effect in one sentence, the forced gates restated, then the typed name right
 * above the red button, which stays disabled until the name matches exactly (and while the request is in
 * flight, so a double click sends once).
 */
export function ConfirmStep({
  mirror,
  destinationCluster,
  plan,
  forced,
  type,
  confirmation,
  submitting,
  canSubmit,
  onType,
  onSubmit,
}: {
  mirror: string
  destinationCluster: string
  plan: FailoverPlan
  forced: readonly string[]
  type: 'planned' | 'unplanned'
  confirmation: string
  submitting: boolean
  canSubmit: boolean
  onType: (text: string) => void
  onSubmit: () => void
}) {
  const totals = planTotals(plan.partitions)
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault()
        if (canSubmit) onSubmit()
      }}
    >
      {type === 'planned' ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-900 dark:bg-amber-950/50 dark:text-amber-100">
          This fences writes to the topics of <span className="font-mono font-semibold">{mirror}</span> on its source, waits until{' '}
          <span className="font-mono font-semibold">{destinationCluster}</span> holds every record, then stops mirroring {counted(totals.partitionsToStop, 'partition')} for good:
          nothing is lost. If the drain does not finish in {Math.round((plan.switchover?.drainTimeoutMs ?? 120_000) / 1000)} s, or you cancel before the stop, it rolls back.
          After the stop the old source stays fenced until a failback.
        </p>
      ) : (
      <p className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-950 dark:border-red-900 dark:bg-red-950/50 dark:text-red-100">
        This stops mirroring {counted(totals.partitionsToStop, 'partition')} of <span className="font-mono font-semibold">{mirror}</span> for good and makes their topics writable on{' '}
        <span className="font-mono font-semibold">{destinationCluster}</span>:{' '}
        {totals.atRisk.records === null
          ? 'an unknown number of records at risk are'
          : `${totals.atRisk.known ? '' : 'at least '}${counted(totals.atRisk.records, 'record')} at risk ${totals.atRisk.records === 1 && totals.atRisk.known ? 'is' : 'are'}`} lost for its readers and{' '}
        {counted(totals.transactionsToAbort, 'open transaction')} {totals.transactionsToAbort === 1 ? 'is' : 'are'} aborted. It cannot be undone; only a failback mirrors back.
      </p>
      )}
      {forced.length > 0 && (
        <p className="text-sm text-amber-900 dark:text-amber-200">
          ▲ Forced past: {forced.map(gateTitle).join(', ')} (recorded in the audit log with your confirmation).
        </p>
      )}
      <div>
        <label htmlFor="failover-confirmation" className="block text-sm font-medium">
          Type the mirror name <span className="font-mono font-semibold">{mirror}</span> to confirm
        </label>
        <input
          id="failover-confirmation"
          autoComplete="off"
          spellCheck={false}
          value={confirmation}
          onChange={(event) => onType(event.target.value)}
          className="mt-1 w-full max-w-md rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
        />
      </div>
      <button
        type="submit"
        disabled={!canSubmit}
        className="inline-flex items-center rounded-md bg-red-600 px-4 py-2 text-sm font-semibold text-white hover:bg-red-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:cursor-not-allowed disabled:opacity-50"
      >
        {submitting ? (type === 'planned' ? 'Switching over…' : 'Failing over…') : type === 'planned' ? `Switch over ${mirror}` : `Fail over ${mirror}`}
      </button>
    </form>
  )
}
