/**
 * The one visual language of partition states: label, icon, tone and severity for every state, used by
 * badges, graph nodes, table rows and charts alike. `satisfies Record<MirrorPartitionState, …>` makes a new
 * state fail to compile until it is given a look here.
 *
 * Colours are CSS custom properties (`--state-<tone>-…`, defined in app/globals.css for light and dark), so
 * canvas charts and SVG graphs read the same colour as a Tailwind badge. The icon is a text glyph so state is
 * never shown by colour alone.
 */
import { STATE_METADATA } from '../mirror/state-metadata'
import { MIRROR_PARTITION_STATES, type MirrorPartitionState } from '../mirror/states'

/** Grey UI, colour reserved for state: five tones, from calm to alarming. */
export type StateTone = 'neutral' | 'progress' | 'healthy' | 'paused' | 'done' | 'danger'

export interface StateStyle {
  readonly label: string
  /** Short uppercase name for dense places (table cells, graph edges). */
  readonly short: string
  /** A glyph that tells the state apart without colour. */
  readonly icon: string
  readonly tone: StateTone
  /**
   * Higher is worse: picks the colour of a mirror edge (its worst partition) and orders "needs attention".
   * FAILED is the worst; transitional states outrank steady ones because a partition stuck in them is stuck.
   */
  readonly severity: number
}

export const STATE_STYLE = {
  UNKNOWN: { label: STATE_METADATA.UNKNOWN.label, short: 'UNKNOWN', icon: '?', tone: 'neutral', severity: 3 },
  PREPARING: { label: STATE_METADATA.PREPARING.label, short: 'PREPARING', icon: '◔', tone: 'progress', severity: 4 },
  EPOCH_FENCING: { label: STATE_METADATA.EPOCH_FENCING.label, short: 'FENCING', icon: '⤒', tone: 'progress', severity: 5 },
  ULE_LOG_TRUNCATION: { label: STATE_METADATA.ULE_LOG_TRUNCATION.label, short: 'ULE', icon: '✂', tone: 'progress', severity: 6 },
  MIRRORING: { label: STATE_METADATA.MIRRORING.label, short: 'MIRRORING', icon: '●', tone: 'healthy', severity: 0 },
  PAUSING: { label: STATE_METADATA.PAUSING.label, short: 'PAUSING', icon: '◑', tone: 'paused', severity: 2 },
  PAUSED: { label: STATE_METADATA.PAUSED.label, short: 'PAUSED', icon: '❚❚', tone: 'paused', severity: 2 },
  STOPPING: { label: STATE_METADATA.STOPPING.label, short: 'STOPPING', icon: '◧', tone: 'progress', severity: 7 },
  STOPPED: { label: STATE_METADATA.STOPPED.label, short: 'STOPPED', icon: '■', tone: 'done', severity: 1 },
  FAILED: { label: STATE_METADATA.FAILED.label, short: 'FAILED', icon: '✕', tone: 'danger', severity: 10 },
} as const satisfies Record<MirrorPartitionState, StateStyle>

export interface ToneStyle {
  /** Tailwind classes of a badge: background, text and ring, light and dark. */
  readonly badge: string
  /** Tailwind classes of a small solid dot or bar segment. */
  readonly solid: string
  /** CSS colour for SVG strokes and canvas (a custom property of app/globals.css). */
  readonly color: string
  /** The same as a custom-property name, for canvas code that resolves it with getComputedStyle. */
  readonly variable: string
}

export const TONE_STYLE = {
  neutral: {
    badge: 'bg-slate-100 text-slate-700 ring-slate-400/40 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-500/40',
    solid: 'bg-slate-400 dark:bg-slate-500',
    color: 'var(--tone-neutral)',
    variable: '--tone-neutral',
  },
  progress: {
    badge: 'bg-sky-50 text-sky-800 ring-sky-600/30 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-400/40',
    solid: 'bg-sky-500 dark:bg-sky-400',
    color: 'var(--tone-progress)',
    variable: '--tone-progress',
  },
  healthy: {
    badge: 'bg-emerald-50 text-emerald-800 ring-emerald-600/30 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-400/40',
    solid: 'bg-emerald-500 dark:bg-emerald-400',
    color: 'var(--tone-healthy)',
    variable: '--tone-healthy',
  },
  paused: {
    badge: 'bg-amber-50 text-amber-900 ring-amber-600/40 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-400/40',
    solid: 'bg-amber-500 dark:bg-amber-400',
    color: 'var(--tone-paused)',
    variable: '--tone-paused',
  },
  done: {
    badge: 'bg-violet-50 text-violet-800 ring-violet-600/30 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-400/40',
    solid: 'bg-violet-500 dark:bg-violet-400',
    color: 'var(--tone-done)',
    variable: '--tone-done',
  },
  danger: {
    badge: 'bg-red-50 text-red-800 ring-red-600/40 dark:bg-red-950 dark:text-red-200 dark:ring-red-400/50',
    solid: 'bg-red-600 dark:bg-red-500',
    color: 'var(--tone-danger)',
    variable: '--tone-danger',
  },
} as const satisfies Record<StateTone, ToneStyle>

export function stateStyle(state: MirrorPartitionState): StateStyle & { toneStyle: ToneStyle } {
  const style = STATE_STYLE[state]
  return { ...style, toneStyle: TONE_STYLE[style.tone] }
}

/**
 * The state's name in KIP-1279 as voted, when it is not ours (LOG_ALIGNMENT for PREPARING, ULE_RECOVERY for
 * ULE_LOG_TRUNCATION), else null: shown beside ours wherever a state is explained, so an operator reading
 * Apache Kafka's documentation finds its words. The API keeps our names.
 */
export function votedKipName(state: MirrorPartitionState): string | null {
  const { kipName } = STATE_METADATA[state]
  return kipName === state ? null : kipName
}

/** A state explained in one line (tooltips): what it means, and its voted KIP name where that differs. */
export function stateExplanation(state: MirrorPartitionState): string {
  const kipName = votedKipName(state)
  const description = STATE_METADATA[state].description
  return kipName === null ? description : `${description} KIP-1279 calls this state ${kipName}.`
}

/** The worst state among those with a count above zero (the colour of a mirror edge); null when all are zero. */
export function worstState(counts: Partial<Record<MirrorPartitionState, number>>): MirrorPartitionState | null {
  let worst: MirrorPartitionState | null = null
  for (const state of MIRROR_PARTITION_STATES) {
    if ((counts[state] ?? 0) <= 0) continue
    if (worst === null || STATE_STYLE[state].severity > STATE_STYLE[worst].severity) worst = state
  }
  return worst
}

/** States in the order a summary lists them: the worst first, healthy ones last. */
export const STATES_BY_SEVERITY: readonly MirrorPartitionState[] = [...MIRROR_PARTITION_STATES].sort(
  (a, b) => STATE_STYLE[b].severity - STATE_STYLE[a].severity,
)
