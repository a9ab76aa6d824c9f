import type { Drill } from '@/lib/api/drills'
import { DRILL_STEPS, drillStepStates, type StepState } from '@/lib/ui/drill-view'

const STEP_LOOK: Record<StepState, { glyph: string; word: string; className: string }> = {
  done: { glyph: '✓', word: 'done', className: 'border-emerald-600 bg-emerald-50 text-emerald-900 dark:border-emerald-400 dark:bg-emerald-950 dark:text-emerald-100' },
  current: { glyph: '◔', word: 'now', className: 'border-sky-600 bg-sky-50 text-sky-900 dark:border-sky-400 dark:bg-sky-950 dark:text-sky-100' },
  stopped: { glyph: '✕', word: 'stopped here', className: 'border-red-600 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100' },
  todo: { glyph: '○', word: 'to do', className: 'border-slate-300 bg-white text-slate-600 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-300' },
}

/** A drill's phases as a row of steps (a column on narrow screens): each done, now, stopped at, or to do. */
export function DrillSteps({ drill }: { drill: Pick<Drill, 'status' | 'phase' | 'stoppedIn'> }) {
  const states = drillStepStates(drill)
  return (
    <ol className="grid gap-2 sm:grid-cols-4" aria-label="Drill phases">
      {DRILL_STEPS.map((step, index) => {
        const state = states[index]!
        const look = STEP_LOOK[state]
        return (
          <li key={step.phase} className={`rounded-md border px-3 py-2 ${look.className}`} aria-current={state === 'current' ? 'step' : undefined} data-phase={step.phase} data-state={state}>
            <p className="flex items-center gap-1.5 text-sm font-semibold">
              <span aria-hidden className={state === 'current' ? 'motion-safe:animate-pulse' : undefined}>
                {look.glyph}
              </span>
              {index + 1}. {step.title}
              <span className="sr-only">: {look.word}</span>
            </p>
            <p className="mt-0.5 text-xs opacity-90">{step.detail}</p>
          </li>
        )
      })}
    </ol>
  )
}
