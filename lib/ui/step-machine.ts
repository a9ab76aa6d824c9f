/**
 * What every wizard of the dashboard is made of (failover, failback, create mirror; STYLE.md B37): its steps
 * in order with a title each (and a short label for the rail), and a transition table — step → event → step —
 * that alone decides where an event leads. A wizard's own module (lib/failover/wizard-states.ts, …) declares
 * these as data (`satisfies RailStepList<Step>`, `satisfies StepTable<Step, Event>`) and keeps only its guards
 * and what its state holds; components/ui/step-wizard.tsx draws them.
 * An event the table does not list for the current step changes nothing.
 */

export interface StepList<S extends string> {
  /** In the order the operator meets them: numbered from 1. */
  readonly steps: readonly S[]
  /** The heading over a step ("Preflight gates"). */
  readonly titles: Readonly<Record<S, string>>
}

/** Steps shown on a rail need a short name each ("Gates"), also the "Next: …" button's. */
export interface RailStepList<S extends string> extends StepList<S> {
  readonly labels: Readonly<Record<S, string>>
}

export type StepTable<S extends string, E extends string> = { readonly [K in S]: Partial<Readonly<Record<E, S>>> }

export type StepStatus = 'done' | 'current' | 'upcoming'

/** The step an event leads to; the current step when the table has no such event for it. */
export function stepAfter<S extends string, E extends string>(table: StepTable<S, E>, step: S, event: E): S {
  return table[step][event] ?? step
}

/** Whether the table lists the event for the step (a guard may still hold it back). */
export function takesEvent<S extends string, E extends string>(table: StepTable<S, E>, step: S, event: E): boolean {
  return table[step][event] !== undefined
}

/** 1 for the first step. */
export function stepNumber<S extends string>(list: StepList<S>, step: S): number {
  return list.steps.indexOf(step) + 1
}

/** Where a step sits against the current one: done, current or still to come. */
export function stepStatus<S extends string>(list: StepList<S>, step: S, current: S): StepStatus {
  const index = list.steps.indexOf(step)
  const currentIndex = list.steps.indexOf(current)
  return index < currentIndex ? 'done' : index === currentIndex ? 'current' : 'upcoming'
}

/** The step after this one in order (what "Next" leads to), undefined after the last. */
export function followingStep<S extends string>(list: StepList<S>, step: S): S | undefined {
  return list.steps[list.steps.indexOf(step) + 1]
}

/** The steps up to and including the current one: what a wizard that keeps its steps on screen shows. */
export function stepsThrough<S extends string>(list: StepList<S>, current: S): readonly S[] {
  return list.steps.slice(0, list.steps.indexOf(current) + 1)
}
