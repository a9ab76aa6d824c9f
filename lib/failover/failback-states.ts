/**
 * The failback wizard as a table (the failover wizard's shape, UI.md §2): name the reverse mirror →
 * read its dry run (truncation per partition, the export of what it removes) → type the old source's
 * name → progress until every partition MIRRORS → done, with both logs compared.
 *
 * `reverseFound` jumps to progress from any step before it: the failback mirror already exists (a reload,
 * another tab). `created` leaves the confirmation once the API created it; `refused` stays with the error.
 */
import { stepAfter, takesEvent, type RailStepList, type StepTable } from '../ui/step-machine'
import { isValidMirrorName } from './failback'

export const FAILBACK_STEPS = ['name', 'plan', 'confirm', 'progress', 'done'] as const
export type FailbackStep = (typeof FAILBACK_STEPS)[number]

export const FAILBACK_STEP_LABELS = {
  name: 'Reverse mirror',
  plan: 'Dry run',
  confirm: 'Confirm',
  progress: 'Progress',
  done: 'Done',
} as const satisfies Record<FailbackStep, string>

/** The wizard's steps as the rail and the headings show them. */
export const FAILBACK_WIZARD = {
  steps: FAILBACK_STEPS,
  labels: FAILBACK_STEP_LABELS,
  titles: {
    name: 'Name the reverse mirror',
    plan: 'Dry run: what the old source loses',
    confirm: 'Confirm the failback',
    progress: 'Failing back',
    done: 'Done',
  },
} as const satisfies RailStepList<FailbackStep>

export type FailbackEventType = 'next' | 'back' | 'submitted' | 'refused' | 'created' | 'reverseFound' | 'allMirroring'

export const FAILBACK_TRANSITIONS = {
  name: { next: 'plan', reverseFound: 'progress' },
  plan: { next: 'confirm', back: 'name', reverseFound: 'progress' },
  confirm: { back: 'plan', submitted: 'confirm', refused: 'confirm', created: 'progress', reverseFound: 'progress' },
  progress: { allMirroring: 'done' },
  done: {},
} as const satisfies StepTable<FailbackStep, FailbackEventType>

export interface FailbackState {
  readonly step: FailbackStep
  readonly reverseName: string
  readonly confirmation: string
  readonly submitting: boolean
  readonly refusal: { readonly code: string; readonly message: string } | null
}

export type FailbackEvent =
  | { readonly type: 'next'; readonly planReady?: boolean }
  | { readonly type: 'back' }
  | { readonly type: 'submitted'; readonly expected: string }
  | { readonly type: 'refused'; readonly error: { readonly code: string; readonly message: string } }
  | { readonly type: 'created' }
  | { readonly type: 'reverseFound'; readonly name: string }
  | { readonly type: 'allMirroring' }
  | { readonly type: 'nameTyped'; readonly name: string }
  | { readonly type: 'confirmationTyped'; readonly text: string }

export function initialFailbackState(reverseName: string, existing: boolean): FailbackState {
  return { step: existing ? 'progress' : 'name', reverseName, confirmation: '', submitting: false, refusal: null }
}

export function canContinue(state: FailbackState, planReady: boolean): boolean {
  if (state.step === 'name') return isValidMirrorName(state.reverseName)
  if (state.step === 'plan') return planReady
  return false
}

export function canCreate(state: FailbackState, expected: string): boolean {
  return state.step === 'confirm' && !state.submitting && state.confirmation === expected
}

export function failbackReducer(state: FailbackState, event: FailbackEvent): FailbackState {
  if (event.type === 'nameTyped') return state.step === 'name' ? { ...state, reverseName: event.name } : state
  if (event.type === 'confirmationTyped') return state.step === 'confirm' ? { ...state, confirmation: event.text, refusal: null } : state
  if (!takesEvent<FailbackStep, FailbackEventType>(FAILBACK_TRANSITIONS, state.step, event.type)) return state
  const target = stepAfter<FailbackStep, FailbackEventType>(FAILBACK_TRANSITIONS, state.step, event.type)
  switch (event.type) {
    case 'next':
      return canContinue(state, event.planReady ?? false) ? { ...state, step: target, refusal: null } : state
    case 'back':
      return state.submitting ? state : { ...state, step: target, confirmation: '', refusal: null }
    case 'submitted':
      return canCreate(state, event.expected) ? { ...state, submitting: true, refusal: null } : state
    case 'refused':
      return { ...state, submitting: false, refusal: event.error }
    case 'created':
      return { ...state, step: target, submitting: false }
    case 'reverseFound':
      return { ...state, step: target, submitting: false, reverseName: event.name }
    case 'allMirroring':
      return { ...state, step: target }
  }
}
