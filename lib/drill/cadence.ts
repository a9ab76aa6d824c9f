/**
 * How recently a mirror's failover was rehearsed: "last successful drill N days ago" on the mirror page and the
 * overview, and whether the `drillIntervalDays` objective (API.md §"Round 3" `config.objectives`) is breached,
 * which the alert rule DrillOverdue reads. Pure.
 */

const DAY_MS = 24 * 60 * 60 * 1000

export interface DrillCadence {
  /** When the last drill that succeeded finished; null when none did. */
  readonly lastSucceededAt: number | null
  /** Whole days since then (0 on the day itself); null when none did. */
  readonly daysSince: number | null
  /** The objective, in days; null when the mirror sets none. */
  readonly intervalDays: number | null
  /** When the next drill is due (the last success plus the interval); null without an objective or a success. */
  readonly dueAt: number | null
  /** True past the interval, or with an objective and no successful drill ever; null without an objective. */
  readonly overdue: boolean | null
}

export function drillCadence(input: { lastSucceededAt: number | null; intervalDays: number | null; now: number }): DrillCadence {
  const { lastSucceededAt, intervalDays, now } = input
  const daysSince = lastSucceededAt === null ? null : Math.max(0, Math.floor((now - lastSucceededAt) / DAY_MS))
  // A fractional interval (492.03 days) still gives a whole-millisecond instant: the API's timestamps are integers.
  const dueAt = lastSucceededAt === null || intervalDays === null ? null : lastSucceededAt + Math.round(intervalDays * DAY_MS)
  const overdue = intervalDays === null ? null : dueAt === null ? true : now > dueAt
  return { lastSucceededAt, daysSince, intervalDays, dueAt, overdue }
}

/** "today", "1 day ago", "12 days ago", or "never". */
export function lastDrillText(cadence: Pick<DrillCadence, 'daysSince'>): string {
  if (cadence.daysSince === null) return 'never'
  if (cadence.daysSince === 0) return 'today'
  return cadence.daysSince === 1 ? '1 day ago' : `${cadence.daysSince} days ago`
}

/** The value at quantile `q` (0..1) of `values`, nearest-rank; null for none. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[rank]!
}
