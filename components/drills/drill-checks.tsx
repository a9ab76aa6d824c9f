import type { Drill } from '@/lib/api/drills'
import { DRILL_CHECK_TITLES } from '@/lib/drill/check-titles'

/** Every check of a drill with its verdict (glyph and word, not colour alone) and what it found. */
export function DrillChecks({ checks }: { checks: Drill['checks'] }) {
  if (checks.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-300">The checks run once the copy has failed over.</p>
  return (
    <ul className="divide-y divide-slate-100 dark:divide-slate-800">
      {checks.map((check) => (
        <li key={check.name} className="flex gap-3 py-2.5" data-check={check.name} data-ok={check.ok}>
          <span
            aria-hidden
            className={`mt-0.5 inline-grid h-5 w-5 shrink-0 place-items-center rounded-full text-xs font-bold ${check.ok ? 'bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100' : 'bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-100'}`}
          >
            {check.ok ? '✓' : '✕'}
          </span>
          <div className="min-w-0">
            <p className="text-sm font-medium text-slate-900 dark:text-slate-100">
              {DRILL_CHECK_TITLES[check.name]} <span className={check.ok ? 'text-emerald-800 dark:text-emerald-300' : 'text-red-800 dark:text-red-300'}>— {check.ok ? 'passed' : 'failed'}</span>
            </p>
            <p className="mt-0.5 text-sm break-words text-slate-600 dark:text-slate-300">{check.detail}</p>
          </div>
        </li>
      ))}
    </ul>
  )
}
