/**
 * A partition's timeline with its retry storms collapsed (issue #33 item 7): while a source is unreachable the
 * engine retries with backoff, and each attempt is two transitions (FAILED → MIRRORING, MIRRORING → FAILED). Ten
 * minutes of that buried what happened before it under hundreds of identical rows. A storm is two or more
 * consecutive failure cycles with the same path (the states from one entry into FAILED to the next), read as one
 * row, "FAILED ⇄ MIRRORING × 11", with its first and last time, the last error and the transitions inside.
 *
 * Pure: oldest first in, oldest first out (the page reverses both the same way).
 */
import type { MirrorPartitionState } from '../mirror/states'

export interface TimelineTransition {
  readonly from: MirrorPartitionState
  readonly to: MirrorPartitionState
  readonly at: number
  readonly reason: string
  readonly error?: string
  readonly retryAttempt?: number
}

export type TimelineEntry<T extends TimelineTransition> =
  | { readonly kind: 'transition'; readonly transition: T; readonly index: number }
  | {
      readonly kind: 'storm'
      /** The cycle's states from FAILED on: ['FAILED', 'MIRRORING'] reads "FAILED ⇄ MIRRORING". */
      readonly path: readonly MirrorPartitionState[]
      /** How many times the partition entered FAILED in the storm. */
      readonly failures: number
      readonly first: number
      readonly last: number
      /** Where the storm left the partition (its last transition's target). */
      readonly endsIn: MirrorPartitionState
      readonly lastError: string | null
      readonly lastAttempt: number | null
      /** The transitions inside, oldest first, with their index in the history. */
      readonly transitions: ReadonlyArray<{ readonly transition: T; readonly index: number }>
    }

/** Cycles longer than this are not a retry (FAILED → PREPARING → MIRRORING → FAILED is 3). */
const MAX_CYCLE = 3
/** Fewer failures than this stay row by row: one retry is a story worth reading, not a storm. */
export const STORM_MIN_FAILURES = 3

export function collapseRetryStorms<T extends TimelineTransition>(transitions: readonly T[]): Array<TimelineEntry<T>> {
  const entries: Array<TimelineEntry<T>> = []
  let index = 0
  while (index < transitions.length) {
    const storm = stormAt(transitions, index)
    if (storm === null) {
      entries.push({ kind: 'transition', transition: transitions[index]!, index })
      index += 1
      continue
    }
    entries.push(storm.entry)
    index = storm.end
  }
  return entries
}

/** The storm that starts with the transition into FAILED at `start`, or null when none does. */
function stormAt<T extends TimelineTransition>(transitions: readonly T[], start: number): { entry: TimelineEntry<T>; end: number } | null {
  if (transitions[start]?.to !== 'FAILED') return null
  const path = cyclePath(transitions, start)
  if (path === null) return null
  // Whole cycles with the same path, then what is left of one more (a storm that is still going ends in FAILED).
  let end = start
  let failures = 0
  while (end < transitions.length) {
    const matched = matchCycle(transitions, end, path)
    if (matched === 0) break
    failures += 1
    end += matched
    if (matched < path.length) break
  }
  if (failures < STORM_MIN_FAILURES) return null
  const inside = transitions.slice(start, end).map((transition, offset) => ({ transition, index: start + offset }))
  const lastFailure = [...inside].reverse().find(({ transition }) => transition.to === 'FAILED')?.transition
  return {
    end,
    entry: {
      kind: 'storm',
      path,
      failures,
      first: inside[0]!.transition.at,
      last: inside.at(-1)!.transition.at,
      endsIn: inside.at(-1)!.transition.to,
      lastError: lastFailure?.error ?? null,
      lastAttempt: lastFailure?.retryAttempt ?? null,
      transitions: inside,
    },
  }
}

/** The states of the cycle starting at `start` (into FAILED) up to the next entry into FAILED; null when there is none. */
function cyclePath(transitions: readonly TimelineTransition[], start: number): MirrorPartitionState[] | null {
  const path: MirrorPartitionState[] = ['FAILED']
  for (let index = start + 1; index < transitions.length && path.length <= MAX_CYCLE; index++) {
    const transition = transitions[index]!
    if (transition.to === 'FAILED') return path.length > 1 ? path : null
    path.push(transition.to)
  }
  return null
}

/**
 * How many transitions from `start` belong to the storm's cycle there: the whole path when the next entry into
 * FAILED closes it; what there is of it at the end of the history (a storm still going); else only the entry
 * into FAILED, so a way out of the storm (the recovery, or another path) is read as a row of its own. 0: no cycle.
 */
function matchCycle(transitions: readonly TimelineTransition[], start: number, path: readonly MirrorPartitionState[]): number {
  let matched = 0
  for (const state of path) {
    const transition = transitions[start + matched]
    if (transition === undefined || transition.to !== state) break
    matched += 1
  }
  if (matched === 0) return 0
  const next = transitions[start + matched]
  if (matched === path.length) return next?.to === 'FAILED' ? matched : 1
  return next === undefined ? matched : 1
}

/** "FAILED ⇄ MIRRORING" for a two-state cycle, "FAILED → PREPARING → MIRRORING ⟲" for a longer one. */
export function stormLabel(path: readonly MirrorPartitionState[]): string {
  return path.length === 2 ? `${path[0]} ⇄ ${path[1]}` : `${path.join(' → ')} ⟲`
}
