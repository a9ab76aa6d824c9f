import 'server-only'

/**
 * A warning a poll of the control cluster repeats while the control cluster does not answer (every second for the
 * shared sign-ins and audit log): said at once, then at most once per `intervalMs` with how many were held back, so
 * an outage leaves a readable log (control-health.ts says the outage itself once, and once it ends).
 */
export function throttledWarning(
  warn: (message: string, fields: Record<string, unknown>) => void,
  options: { intervalMs?: number; now?: () => number } = {},
): (message: string, fields: Record<string, unknown>) => void {
  const intervalMs = options.intervalMs ?? 60_000
  const now = options.now ?? Date.now
  let saidAt: number | null = null
  let heldBack = 0
  return (message, fields) => {
    const at = now()
    if (saidAt !== null && at - saidAt < intervalMs) {
      heldBack++
      return
    }
    warn(message, heldBack === 0 ? fields : { ...fields, heldBack })
    saidAt = at
    heldBack = 0
  }
}
