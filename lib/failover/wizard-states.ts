/**
 * The failover wizard as a small table-driven machine (STYLE.md B37, UI.md §2): six steps, the events
 * that move between them, and named guards; the component renders the step and dispatches events, and
 * never decides by itself which step comes next.
 *
 *   type → topics → gates → impact → confirm → progress → result
 *
 * - `next` / `back` walk the first five steps; leaving a step needs its guard (a type chosen; a topic
 *   chosen; no gate left that stops the failover; the mirror's name typed).
 * - `type`: planned (a switchover: fence, drain, stop; nothing lost) or unplanned (stop now, losing what the
 *   preview shows); choosing another type clears what was forced, as its gates differ (issue #34).
 * - `rpo-objective`, the gate of the mirror's recovery-point objective, is forced only by typing the loss
 *   the operator accepts (`rpoAcceptance`), never by a checkbox.
 * - `submitted` marks the confirmation as sent: a second click (or Enter) while it is in flight is
 *   ignored, so one wizard never starts two operations.
 * - `refused` keeps the wizard on the confirm step with the API's error; `accepted` goes to progress
 *   with the operation's id.
 * - `operationFound` jumps from any of the first four steps to progress: the wizard was opened (or
 *   reloaded, or opened by a second operator) while a failover of this mirror runs.
 * - `finished` goes from progress to the result once the operation is no longer running.
 */
import { stepAfter as tableStepAfter, stepStatus as listStepStatus, takesEvent, type RailStepList, type StepStatus, type StepTable } from '../ui/step-machine'
import { decideGates, type GateLike } from './gate-forcing'
import { formatInteger } from '../ui/format'

export const FAILOVER_STEPS = ['type', 'topics', 'gates', 'impact', 'confirm', 'progress', 'result'] as const
export type FailoverStep = (typeof FAILOVER_STEPS)[number]

export const STEP_LABELS = {
  type: 'Type',
  topics: 'Topics',
  gates: 'Gates',
  impact: 'Impact',
  confirm: 'Confirm',
  progress: 'Progress',
  result: 'Result',
} as const satisfies Record<FailoverStep, string>

/** The wizard's steps as the rail and the headings show them. */
export const FAILOVER_WIZARD = {
  steps: FAILOVER_STEPS,
  labels: STEP_LABELS,
  titles: {
    type: 'Planned or unplanned',
    topics: 'Choose the topics',
    gates: 'Preflight gates',
    impact: 'Impact preview',
    confirm: 'Confirm the failover',
    progress: 'Failing over',
    result: 'Result',
  },
} as const satisfies RailStepList<FailoverStep>

export type WizardEventType = 'next' | 'back' | 'submitted' | 'refused' | 'accepted' | 'operationFound' | 'finished'

type TransitionTable = StepTable<FailoverStep, WizardEventType>

export const WIZARD_TRANSITIONS = {
  type: { next: 'topics', operationFound: 'progress' },
  topics: { next: 'gates', back: 'type', operationFound: 'progress' },
  gates: { next: 'impact', back: 'topics', operationFound: 'progress' },
  impact: { next: 'confirm', back: 'gates', operationFound: 'progress' },
  confirm: { back: 'impact', submitted: 'confirm', refused: 'confirm', accepted: 'progress', operationFound: 'progress' },
  progress: { finished: 'result' },
  result: {},
} as const satisfies TransitionTable

export type TopicSelection = { readonly mode: 'all' } | { readonly mode: 'some'; readonly topics: readonly string[] }

export interface WizardError {
  readonly code: string
  readonly message: string
}

export type FailoverType = 'planned' | 'unplanned'

export interface WizardState {
  readonly step: FailoverStep
  /** null until chosen (the type step offers planned when the source answers). */
  readonly type: FailoverType | null
  readonly selection: TopicSelection
  /** Names of failing warning gates the operator chose to force past. */
  readonly forced: readonly string[]
  /** What the operator typed in the confirmation field. */
  readonly confirmation: string
  /** A confirmation is in flight. */
  readonly submitting: boolean
  readonly refusal: WizardError | null
  readonly operationId: string | null
}

export type WizardEvent =
  | { readonly type: 'next'; readonly mirror: string; readonly gates?: readonly GateLike[] | null }
  | { readonly type: 'back' }
  | { readonly type: 'submitted'; readonly mirror: string }
  | { readonly type: 'refused'; readonly error: WizardError }
  | { readonly type: 'accepted'; readonly operationId: string }
  | { readonly type: 'operationFound'; readonly operationId: string }
  | { readonly type: 'finished' }
  // Edits: they change what the operator chose, never the step.
  | { readonly type: 'selectionChanged'; readonly selection: TopicSelection }
  | { readonly type: 'typeChosen'; readonly failoverType: FailoverType }
  | { readonly type: 'forceToggled'; readonly gate: string; readonly force: boolean }
  | { readonly type: 'confirmationTyped'; readonly text: string }

export function initialWizardState(operationId: string | null = null): WizardState {
  return {
    step: operationId === null ? 'type' : 'progress',
    type: null,
    selection: { mode: 'all' },
    forced: [],
    confirmation: '',
    submitting: false,
    refusal: null,
    operationId,
  }
}

// GUARDS

export function hasTopicSelection(state: Pick<WizardState, 'selection'>): boolean {
  return state.selection.mode === 'all' || state.selection.topics.length > 0
}

/** Every failing gate is either passed or forced, and none is blocking. */
export function areGatesCleared(gates: readonly GateLike[] | null | undefined, forced: readonly string[]): boolean {
  return gates !== null && gates !== undefined && decideGates(gates, forced).canProceed
}

/** The exact name, as the API compares it (case and spaces count). */
export function isConfirmationTyped(confirmation: string, mirror: string): boolean {
  return confirmation === mirror
}

/** Whether `next` may leave the current step now. */
export function canGoNext(state: WizardState, context: { mirror: string; gates?: readonly GateLike[] | null }): boolean {
  switch (state.step) {
    case 'type':
      return state.type !== null
    case 'topics':
      return hasTopicSelection(state)
    case 'gates':
      return areGatesCleared(context.gates, state.forced)
    case 'impact':
      return true
    default:
      return false
  }
}

export function canSubmit(state: WizardState, mirror: string): boolean {
  return state.step === 'confirm' && !state.submitting && isConfirmationTyped(state.confirmation, mirror)
}

// REDUCER

/** The step the table gives for an event; the current step when the table has none. */
export function stepAfter(step: FailoverStep, event: WizardEventType): FailoverStep {
  return tableStepAfter<FailoverStep, WizardEventType>(WIZARD_TRANSITIONS, step, event)
}

export function wizardReducer(state: WizardState, event: WizardEvent): WizardState {
  switch (event.type) {
    case 'typeChosen':
      // The gates of the other type differ: what was forced for one is decided again for the other.
      return state.step === 'type' ? { ...state, type: event.failoverType, forced: event.failoverType === state.type ? state.forced : [] } : state
    case 'selectionChanged':
      // A new selection needs new gates: forcing is decided again.
      return state.step === 'topics' ? { ...state, selection: event.selection, forced: [] } : state
    case 'forceToggled': {
      if (state.step !== 'gates') return state
      const others = state.forced.filter((gate) => gate !== event.gate)
      return { ...state, forced: event.force ? [...others, event.gate] : others }
    }
    case 'confirmationTyped':
      return state.step === 'confirm' ? { ...state, confirmation: event.text, refusal: null } : state
    default:
      break
  }
  if (!takesEvent<FailoverStep, WizardEventType>(WIZARD_TRANSITIONS, state.step, event.type)) return state
  switch (event.type) {
    case 'next':
      if (!canGoNext(state, event)) return state
      return { ...state, step: stepAfter(state.step, 'next'), refusal: null }
    case 'back':
      if (state.submitting) return state
      return { ...state, step: stepAfter(state.step, 'back'), refusal: null, confirmation: state.step === 'confirm' ? '' : state.confirmation }
    case 'submitted':
      if (!canSubmit(state, event.mirror)) return state
      return { ...state, submitting: true, refusal: null }
    case 'refused':
      return { ...state, submitting: false, refusal: event.error }
    case 'accepted':
    case 'operationFound':
      return { ...state, step: 'progress', submitting: false, refusal: null, operationId: event.operationId }
    case 'finished':
      return { ...state, step: stepAfter(state.step, 'finished') }
  }
}

/** Where a step sits on the rail: done, current or still to come. */
export function stepStatus(step: FailoverStep, current: FailoverStep): StepStatus {
  return listStepStatus(FAILOVER_WIZARD, step, current)
}

/** The request body of the real failover for this state (`topics` left out for all; the type always sent). */
export function failoverRequestOf(state: WizardState, mirror: string): { type: FailoverType; topics?: string[]; confirm: string; force: string[] } {
  return {
    type: state.type ?? 'unplanned',
    ...(state.selection.mode === 'some' ? { topics: [...state.selection.topics] } : {}),
    confirm: mirror,
    force: [...state.forced],
  }
}

/**
 * The words an operator types to accept losing more than the RPO objective (UI.md: a typed acceptance, not a
 * checkbox): `accept the loss of 5,332 records, 103 s`. Built from the plan the operator reads, so a plan whose
 * figures changed asks for new words.
 */
export function rpoAcceptance(rpo: { readonly records: number | null; readonly seconds: number | null }): string {
  const records = rpo.records === null ? 'unknown records' : `${formatInteger(rpo.records)} record${rpo.records === 1 ? '' : 's'}`
  const seconds = rpo.seconds === null ? 'unknown time' : `${formatInteger(Math.ceil(rpo.seconds))} s`
  return `accept the loss of ${records}, ${seconds}`
}

/**
 * Why a planned switchover is not offered for this plan, or null when it is: it needs the source (to fence and
 * drain) and every partition MIRRORING (a paused or FAILED partition never drains).
 */
export function plannedUnavailable(plan: { readonly gates: readonly GateLike[]; readonly partitions?: ReadonlyArray<{ readonly state: string }> }): string | null {
  if (!(plan.gates.find((gate) => gate.name === 'source-reachable')?.ok ?? false)) return 'the source does not answer, and a switchover needs it to fence and drain'
  const notMirroring = (plan.partitions ?? []).filter((partition) => partition.state !== 'MIRRORING')
  if (notMirroring.length > 0) {
    const states = [...new Set(notMirroring.map((partition) => partition.state))].join(', ')
    return `${notMirroring.length} partition${notMirroring.length === 1 ? ' is' : 's are'} not MIRRORING (${states}) and would never drain`
  }
  return null
}

/** The type the wizard offers first: planned when it is possible and the mirror is within its RPO objective. */
export function defaultFailoverType(
  plan: { readonly gates: readonly GateLike[]; readonly partitions?: ReadonlyArray<{ readonly state: string }>; readonly rpo?: { readonly status: string } } | undefined,
): FailoverType | null {
  if (plan === undefined) return null
  if (plannedUnavailable(plan) !== null) return 'unplanned'
  return plan.rpo === undefined || plan.rpo.status === 'met' ? 'planned' : 'unplanned'
}
