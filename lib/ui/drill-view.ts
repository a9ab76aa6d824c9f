/**
 * How a drill reads on screen (the mirror's Drills tab, the drill page): its phases as steps, each done, current,
 * stopped at or still to come; its checks in a sentence. Pure.
 */
import type { Drill, DrillPhase } from '../api/drills'

export const DRILL_STEPS: ReadonlyArray<{ readonly phase: Exclude<DrillPhase, 'done'>; readonly title: string; readonly detail: string }> = [
  { phase: 'copying', title: 'Copy', detail: "the destination's mirror partitions at the mirrored point" },
  { phase: 'failingOver', title: 'Fail over the copy', detail: 'the real STOPPING sequence, on the sandbox' },
  { phase: 'checking', title: 'Check', detail: 'markers, read_committed, groups, producers, isolation' },
  { phase: 'cleaningUp', title: 'Remove the sandbox', detail: 'whatever happened before' },
]

export type StepState = 'done' | 'current' | 'stopped' | 'todo'

/** Each step's state: before the current phase done, the current one current (or where a failed drill stopped). */
export function drillStepStates(drill: Pick<Drill, 'status' | 'phase' | 'stoppedIn'>): StepState[] {
  if (drill.phase === 'done') {
    if (drill.status === 'succeeded' || drill.stoppedIn === null || drill.stoppedIn === 'done') return DRILL_STEPS.map(() => 'done')
    const index = DRILL_STEPS.findIndex((step) => step.phase === drill.stoppedIn)
    // The sandbox is removed whatever happened before.
    return DRILL_STEPS.map((step, position) => (step.phase === 'cleaningUp' ? 'done' : position < index ? 'done' : position === index ? 'stopped' : 'todo'))
  }
  const current = DRILL_STEPS.findIndex((step) => step.phase === drill.phase)
  return DRILL_STEPS.map((_, position) => (position < current ? 'done' : position === current ? 'current' : 'todo'))
}

/** "7 of 7 checks passed", "2 of 7 checks failed", "no checks yet". */
export function checksSentence(checks: Drill['checks']): string {
  if (checks.length === 0) return 'no checks yet'
  const failed = checks.filter((check) => !check.ok).length
  return failed === 0 ? `${checks.length} of ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`
}
