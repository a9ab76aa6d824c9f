/**
 * The create-mirror wizard as a step machine (lib/ui/step-machine.ts), like the failover and failback ones:
 * its form's three sections (clusters, topics, settings) are on screen from the start, and the dry run's
 * plan joins them as step 4 once it answered for exactly what the form says. Any edit leads back to the
 * form and drops the plan, so what is confirmed is what was previewed; a dry run that answers after the form
 * changed is dropped too.
 *
 *   settings ⇄ plan   (previewed: the dry run answered for this form; edited: the form changed)
 */
import type { CreateMirrorRequest, TruncationPlan } from '../api/mirrors'
import { splitList } from './form-issues'
import { createConfigInput, type ConfigTexts } from './mirror-config-input'
import { stepAfter, takesEvent, type StepList, type StepTable } from './step-machine'

export const CREATE_MIRROR_STEPS = ['clusters', 'topics', 'settings', 'plan'] as const
export type CreateMirrorStep = (typeof CREATE_MIRROR_STEPS)[number]

export const CREATE_MIRROR_WIZARD = {
  steps: CREATE_MIRROR_STEPS,
  titles: {
    clusters: 'Name and clusters',
    topics: 'Topics',
    settings: 'Settings',
    plan: 'The plan: where each destination partition starts',
  },
} as const satisfies StepList<CreateMirrorStep>

export type CreateMirrorEventType = 'previewed' | 'edited'

/** The form's first two sections are never the current step on their own: the form is one step, shown whole. */
export const CREATE_MIRROR_TRANSITIONS = {
  clusters: {},
  topics: {},
  settings: { previewed: 'plan', edited: 'settings' },
  plan: { previewed: 'plan', edited: 'settings' },
} as const satisfies StepTable<CreateMirrorStep, CreateMirrorEventType>

export interface CreateMirrorDraft {
  readonly name: string
  readonly source: string
  readonly destination: string
  /** Topics ticked by name. */
  readonly named: ReadonlySet<string>
  /** Include and exclude patterns as typed, one a line. */
  readonly include: string
  readonly exclude: string
  readonly config: ConfigTexts
}

export interface CreateMirrorState {
  readonly step: CreateMirrorStep
  readonly draft: CreateMirrorDraft
  /** The dry run's plan for the draft as it is (only on the plan step). */
  readonly plan: TruncationPlan | null
}

export type CreateMirrorEvent =
  | { readonly type: 'edited'; readonly change: Partial<CreateMirrorDraft> }
  /** `request`: requestKey of the draft the dry run was asked for. */
  | { readonly type: 'previewed'; readonly plan: TruncationPlan; readonly request: string }

export function initialCreateMirrorState(source: string, destination: string): CreateMirrorState {
  return { step: 'settings', draft: { name: '', source, destination, named: new Set(), include: '', exclude: '', config: {} }, plan: null }
}

/** The request the form stands for: the named topics sorted, empty lists and default settings left out. */
export function createMirrorRequestOf(draft: CreateMirrorDraft): CreateMirrorRequest {
  const include = splitList(draft.include)
  const config = createConfigInput(draft.config)
  return {
    name: draft.name,
    sourceCluster: draft.source,
    destinationCluster: draft.destination,
    ...(draft.named.size === 0 ? {} : { topics: [...draft.named].sort() }),
    ...(include.length === 0 ? {} : { topicsInclude: include }),
    // An empty exclude box keeps the default (internal topics out); the operator replaces it by typing.
    ...(draft.exclude.trim() === '' ? {} : { topicsExclude: splitList(draft.exclude) }),
    ...(Object.keys(config).length === 0 ? {} : { config }),
  }
}

/** Two drafts with the same key send the same request. */
export function requestKey(draft: CreateMirrorDraft): string {
  return JSON.stringify(createMirrorRequestOf(draft))
}

export function createMirrorReducer(state: CreateMirrorState, event: CreateMirrorEvent): CreateMirrorState {
  if (!takesEvent<CreateMirrorStep, CreateMirrorEventType>(CREATE_MIRROR_TRANSITIONS, state.step, event.type)) return state
  const step = stepAfter<CreateMirrorStep, CreateMirrorEventType>(CREATE_MIRROR_TRANSITIONS, state.step, event.type)
  switch (event.type) {
    case 'edited':
      return { step, draft: { ...state.draft, ...event.change }, plan: null }
    case 'previewed':
      // Asked for a form the operator has changed since: not the plan of what would be created.
      return event.request === requestKey(state.draft) ? { ...state, step, plan: event.plan } : state
  }
}
