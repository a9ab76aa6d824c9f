
/**
 * The wizard's step rail: each step numbered and marked done (✓), current (●) or upcoming (○), so the
 * position reads without colour. A column on wide screens, a wrapped row on phones.
 */
export function StepRail<S extends string>({ steps, labels, current, label }: { steps: readonly S[]; labels: Readonly<Record<S, string>>; current: S; label: string }) {
  return (
    <nav aria-label={label} className="lg:w-44 lg:shrink-0">
      <ol className="flex flex-wrap gap-x-3 gap-y-1.5 lg:flex-col lg:gap-1">
        {steps.map((step, index) => {
          const status = stepStatusOf(steps, step, current)
          return (
            <li
              key={step}
              aria-current={status === 'current' ? 'step' : undefined}
              className={`flex items-center gap-2 rounded-md px-2 py-1 text-sm ${
                status === 'current'
                  ? 'bg-indigo-50 font-semibold text-indigo-900 dark:bg-indigo-950 dark:text-indigo-100'
                  : status === 'done'
                    ? 'text-slate-700 dark:text-slate-300'
                    : 'text-slate-500 dark:text-slate-400'
              }`}
            >
              <span aria-hidden className="w-4 text-center font-mono">
                {status === 'done' ? '✓' : status === 'current' ? '●' : '○'}
              </span>
              <span>
                <span className="tabular-nums">{index + 1}</span> {labels[step]}
              </span>
              <span className="sr-only">{status === 'done' ? '(done)' : status === 'current' ? '(current step)' : '(to come)'}</span>
            </li>
          )
        })}
      </ol>
    </nav>
  )
}

function stepStatusOf<S extends string>(steps: readonly S[], step: S, current: S): 'done' | 'current' | 'upcoming' {
  const index = steps.indexOf(step)
  const currentIndex = steps.indexOf(current)
  return index < currentIndex ? 'done' : index === currentIndex ? 'current' : 'upcoming'
}

