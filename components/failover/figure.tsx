import type { ReactNode } from 'react'

/** A number that matters, in large type, with what it counts and an optional exact value on hover. */
export function Figure({ label, value, detail, title, tone = 'neutral' }: { label: string; value: ReactNode; detail?: ReactNode; title?: string; tone?: 'neutral' | 'danger' | 'warning' }) {
  const colour =
    tone === 'danger' ? 'text-red-700 dark:text-red-300' : tone === 'warning' ? 'text-amber-800 dark:text-amber-300' : 'text-slate-900 dark:text-slate-50'
  return (
    <div className="min-w-0 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900" data-figure={label}>
      <dt className="text-xs font-medium text-slate-600 uppercase dark:text-slate-400">{label}</dt>
      <dd className={`mt-1 text-2xl font-semibold tabular-nums ${colour}`} title={title}>
        {value}
      </dd>
      {detail !== undefined && <dd className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">{detail}</dd>}
    </div>
  )
}
