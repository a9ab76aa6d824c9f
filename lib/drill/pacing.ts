/**
 * How long a drill's next step of work on its copy waits so production mirroring keeps its pace: the drill shares
 * the event loop, the thread pool and the disk with the mirror it rehearses (issue #37: production lag p99 during a
 * drill ≤ 1.5× without). Nothing while the mirror's time lag stays within its budget — the lag when the drill
 * started, plus half of it and at least LAG_ALLOWANCE_MS — then longer the further it is over, up to MAX_PAUSE_MS
 * a step, so a drill slows down but always ends. Pure: the caller reads the lag and sleeps.
 */

export const LAG_ALLOWANCE_MS = 250
export const MAX_PAUSE_MS = 200

export function lagBudgetMs(baselineLagMs: number): number {
  const baseline = Number.isFinite(baselineLagMs) && baselineLagMs > 0 ? baselineLagMs : 0
  return baseline + Math.max(baseline / 2, LAG_ALLOWANCE_MS)
}

/** Milliseconds to wait before the next step; 0 when the lag is unknown (no partition measured) or within budget. */
export function drillPauseMs(lagMs: number | null, baselineLagMs: number): number {
  if (lagMs === null || !Number.isFinite(lagMs)) return 0
  const over = lagMs - lagBudgetMs(baselineLagMs)
  if (over <= 0) return 0
  // A quarter of the excess: at 400 ms over budget the drill pauses 100 ms a step, and a step's own work is ~1 ms.
  return Math.min(MAX_PAUSE_MS, Math.max(1, Math.round(over / 4)))
}
