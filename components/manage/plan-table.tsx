import type { TruncationPlan } from '@/lib/api/mirrors'
import { formatInteger, formatOffset } from '@/lib/ui/format'
import { truncationReason } from '@/lib/ui/truncation-reason'

const ROWS_SHOWN = 200

/** Why a partition is cut where it is, in words (lib/mirror/truncation.ts `reason`). */
/**
 * The dry run's truncation plan: totals first, then per partition where the destination log is cut and how
 * many records that removes, worst first.
 */
export function PlanTable({ plan }: { plan: TruncationPlan }) {
  const sorted = [...plan.partitions].sort((a, b) => b.recordsToRemove - a.recordsToRemove || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
  const removed = sorted.reduce((sum, entry) => sum + entry.recordsToRemove, 0)
  const cut = sorted.filter((entry) => entry.recordsToRemove > 0).length
  const topics = new Set(sorted.map((entry) => entry.topic)).size
  return (
    <section aria-label="Truncation plan" className="space-y-3">
      <dl className="grid grid-cols-3 gap-3">
        {(
          [
            ['Topics', formatInteger(topics)],
            ['Partitions', formatInteger(sorted.length)],
            ['Records removed', formatInteger(removed)],
          ] as const
        ).map(([label, value]) => (
          <div key={label} className="rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700">
            <dt className="text-xs text-slate-600 dark:text-slate-400">{label}</dt>
            <dd className={`text-xl font-semibold tabular-nums ${label === 'Records removed' && removed > 0 ? 'text-red-700 dark:text-red-300' : ''}`}>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="plan-summary">
        {sorted.length === 0
          ? 'No partition to start: the mirror is created without topics; start some later from its page.'
          : removed === 0
            ? `No destination record is removed: every partition starts where the source log starts.`
            : `${formatInteger(cut)} destination ${cut === 1 ? 'partition is' : 'partitions are'} truncated, removing ${formatInteger(removed)} ${removed === 1 ? 'record' : 'records'} the source does not have.`}
      </p>
      {sorted.length > 0 && (
        <div className="max-h-80 overflow-auto rounded-md border border-slate-200 dark:border-slate-700" tabIndex={0} role="region" aria-label="Plan per partition">
          <table className="w-full min-w-[30rem] text-left text-sm">
            <thead className="sticky top-0 bg-slate-50 text-xs text-slate-600 uppercase dark:bg-slate-800 dark:text-slate-300">
              <tr>
                <th scope="col" className="px-3 py-2 font-semibold">Partition</th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">Truncation point</th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">Records to remove</th>
                <th scope="col" className="px-3 py-2 font-semibold">Why</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {sorted.slice(0, ROWS_SHOWN).map((entry) => (
                <tr key={`${entry.topic}/${entry.partition}`}>
                  <td className="px-3 py-1.5 font-mono text-xs break-words">
                    {/* The partition number stays on the line of the name's last part. */}
                    {entry.topic}
                    <span className="whitespace-nowrap">-{entry.partition}</span>
                  </td>
                  <td className="px-3 py-1.5 text-right font-mono tabular-nums">{entry.truncateTo === null ? 'whole log' : `✂ ${formatOffset(entry.truncateTo)}`}</td>
                  <td className={`px-3 py-1.5 text-right tabular-nums ${entry.recordsToRemove > 0 ? 'font-semibold text-red-700 dark:text-red-300' : ''}`}>{formatOffset(entry.recordsToRemove)}</td>
                  <td className="px-3 py-1.5 text-xs text-slate-600 dark:text-slate-400">{entry.reason === undefined ? '–' : truncationReason(entry.reason)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {sorted.length > ROWS_SHOWN && (
            <p className="px-3 py-1.5 text-xs text-slate-600 dark:text-slate-400">and {formatInteger((sorted.length - ROWS_SHOWN))} more partitions (the totals count them all)</p>
          )}
        </div>
      )}
    </section>
  )
}
