'use client'

import { useEffect, useId, useRef, type ReactNode } from 'react'
import { buttonClass } from '@/components/ui/button-class'
import { Panel } from '@/components/ui/panel'
import { followingStep, stepNumber, stepStatus, type RailStepList, type StepList } from '@/lib/ui/step-machine'

/**
 * The wizards' one step machine on screen (over lib/ui/step-machine.ts). `StepWizard` shows one step at a
 * time beside a rail of all of them (failover, failback): the numbered title, the step's body, and Back /
 * "Next: <step>" when the step has them; arriving at a new step moves focus to its title, so a screen reader
 * reads where the operator is. `StepPanel` is the same numbered title for a wizard that keeps every step it
 * reached on screen (create mirror: the form's sections, then the plan below them).
 */

export interface StepNavigation {
  readonly onBack: () => void
  readonly backDisabled: boolean
  /** Absent on a step that is left by its own button (the confirmation). */
  readonly onNext?: () => void
  readonly nextDisabled?: boolean
}

export function StepWizard<S extends string>({
  steps,
  current,
  label,
  navigation,
  children,
}: {
  steps: RailStepList<S>
  current: S
  /** The rail's accessible name ("Failover steps"). */
  label: string
  /** Back and Next under the step; absent once the wizard runs on its own (progress, result). */
  navigation?: StepNavigation
  children: ReactNode
}) {
  const titleId = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  const shown = useRef(current)
  useEffect(() => {
    // Not on the first render: a page opened at a step starts at its top like any page.
    if (shown.current === current) return
    shown.current = current
    heading.current?.focus()
  }, [current])
  const next = followingStep(steps, current)
  return (
    <div className="flex flex-col gap-6 lg:flex-row">
      <StepRail steps={steps} current={current} label={label} />
      <section aria-labelledby={titleId} className="min-w-0 flex-1 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <h2 id={titleId} ref={heading} tabIndex={-1} className="text-lg font-semibold focus:outline-none">
          <StepTitle steps={steps} step={current} />
        </h2>
        <div className="mt-4 space-y-4">{children}</div>
        {navigation !== undefined && (
          <div className="mt-6 flex flex-wrap items-center justify-between gap-2 border-t border-slate-100 pt-4 dark:border-slate-800">
            <button type="button" className={buttonClass('secondary')} disabled={navigation.backDisabled} onClick={navigation.onBack}>
              Back
            </button>
            {navigation.onNext !== undefined && next !== undefined && (
              <button type="button" className={buttonClass('primary')} disabled={navigation.nextDisabled === true} onClick={navigation.onNext}>
                Next: {steps.labels[next]}
              </button>
            )}
          </div>
        )}
      </section>
    </div>
  )
}

/** A step of a wizard that keeps the steps it reached on screen: a panel titled "2 · Topics". */
export function StepPanel<S extends string>({ steps, step, id, children }: { steps: StepList<S>; step: S; id?: string; children: ReactNode }) {
  return (
    <Panel id={id} title={`${stepNumber(steps, step)} · ${steps.titles[step]}`}>
      {children}
    </Panel>
  )
}

function StepTitle<S extends string>({ steps, step }: { steps: StepList<S>; step: S }) {
  return (
    <>
      <span className="text-slate-500 tabular-nums dark:text-slate-400">{stepNumber(steps, step)}.</span> {steps.titles[step]}
    </>
  )
}

/**
 * The rail: each step numbered and marked done (✓), current (●) or upcoming (○), so the position reads
 * without colour. A column on wide screens, a wrapped row on phones.
 */
function StepRail<S extends string>({ steps, current, label }: { steps: RailStepList<S>; current: S; label: string }) {
  return (
    <nav aria-label={label} className="lg:w-44 lg:shrink-0">
      <ol className="flex flex-wrap gap-x-3 gap-y-1.5 lg:flex-col lg:gap-1">
        {steps.steps.map((step) => {
          const status = stepStatus(steps, step, current)
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
                <span className="tabular-nums">{stepNumber(steps, step)}</span> {steps.labels[step]}
              </span>
              <span className="sr-only">{status === 'done' ? '(done)' : status === 'current' ? '(current step)' : '(to come)'}</span>
            </li>
          )
        })}
      </ol>
    </nav>
  )
}
