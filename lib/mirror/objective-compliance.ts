/**
 * How much of the time a mirror met its recovery-point objective (issue #34: "RPO met 99.93 % of the last 24 h"),
 * from the recovery point the engine keeps per minute (server/engine/lag/lag-archive.ts): the records at risk
 * and the age of the oldest record not yet mirrored, each minute's worst. A minute is
 *
 *   breached  when a figure exceeds the objective (a lower bound that exceeds it already does);
 *   unknown   when a lag was not known in it (a silent source) and nothing exceeded: never counted as met;
 *   met       otherwise.
 *
 * Minutes without a record (the server down, nothing protected) are not counted; the window says how many were.
 * And each failover's measured RTO against the RTO objective. Pure.
 */

export interface RecoveryPointSample {
  readonly t: number
  readonly records: number
  /** The oldest record not mirrored, ms; null when its age was not known. */
  readonly oldestMs: number | null
  /** Every lag was known all minute. */
  readonly known: boolean
}

export interface RpoObjective {
  readonly rpoRecords?: number
  readonly rpoSeconds?: number
}

export type MinuteVerdict = 'met' | 'breached' | 'unknown'

export function minuteVerdict(sample: RecoveryPointSample, objective: RpoObjective): MinuteVerdict {
  if (objective.rpoRecords !== undefined && sample.records > objective.rpoRecords) return 'breached'
  if (objective.rpoSeconds !== undefined && sample.oldestMs !== null && sample.oldestMs / 1000 > objective.rpoSeconds) return 'breached'
  if (!sample.known || (objective.rpoSeconds !== undefined && sample.oldestMs === null)) return 'unknown'
  return 'met'
}

/**
 * The recovery point now against the RPO objective (the summary's `objectives.status`, GET /mirrors/{m}/objectives):
 * breached when a figure exceeds it (a lower bound that exceeds it already does), unknown while a lag is not known
 * (never met), met otherwise; null without an RPO objective.
 */
export function currentRpoStatus(rpo: { records: number | null; seconds: number | null; known: boolean }, objective: RpoObjective): MinuteVerdict | null {
  if (objective.rpoRecords === undefined && objective.rpoSeconds === undefined) return null
  if (objective.rpoRecords !== undefined && rpo.records !== null && rpo.records > objective.rpoRecords) return 'breached'
  if (objective.rpoSeconds !== undefined && rpo.seconds !== null && rpo.seconds > objective.rpoSeconds) return 'breached'
  return rpo.known ? 'met' : 'unknown'
}

export interface ComplianceCount {
  /** Start of the window (inclusive) and its end (exclusive), ms. */
  readonly from: number
  readonly to: number
  readonly met: number
  readonly breached: number
  readonly unknown: number
  /** Minutes in the window with no record. */
  readonly notRecorded: number
  /** met / (met + breached + unknown); null when no minute was recorded. */
  readonly metShare: number | null
}

export interface RpoCompliance {
  readonly last24h: ComplianceCount
  readonly last30d: ComplianceCount
  /** The last 30 UTC days, oldest first (the last one is today so far). */
  readonly days: ComplianceCount[]
}

const MINUTE_MS = 60_000
const DAY_MS = 24 * 60 * MINUTE_MS

function count(verdicts: ReadonlyArray<{ t: number; verdict: MinuteVerdict }>, from: number, to: number): ComplianceCount {
  let met = 0
  let breached = 0
  let unknown = 0
  for (const { t, verdict } of verdicts) {
    if (t < from || t >= to) continue
    if (verdict === 'met') met += 1
    else if (verdict === 'breached') breached += 1
    else unknown += 1
  }
  const recorded = met + breached + unknown
  const minutes = Math.max(0, Math.ceil((to - from) / MINUTE_MS))
  return { from, to, met, breached, unknown, notRecorded: Math.max(0, minutes - recorded), metShare: recorded === 0 ? null : met / recorded }
}

/** The objective's compliance over the last 24 hours, the last 30 days and each of those days; null without an RPO objective. */
export function rpoCompliance(samples: readonly RecoveryPointSample[], objective: RpoObjective, now: number): RpoCompliance | null {
  if (objective.rpoRecords === undefined && objective.rpoSeconds === undefined) return null
  // The minute now running is not over: minutes are counted up to its start.
  const end = Math.floor(now / MINUTE_MS) * MINUTE_MS
  const verdicts = samples.map((sample) => ({ t: sample.t, verdict: minuteVerdict(sample, objective) }))
  const today = Math.floor(now / DAY_MS) * DAY_MS
  const days = Array.from({ length: 30 }, (_, index) => {
    const from = today - (29 - index) * DAY_MS
    return count(verdicts, from, Math.min(from + DAY_MS, end))
  })
  return { last24h: count(verdicts, end - DAY_MS, end), last30d: count(verdicts, end - 30 * DAY_MS, end), days }
}

export interface RtoResult {
  readonly operation: string
  readonly type: 'planned' | 'unplanned'
  readonly startedAt: number
  readonly rtoMs: number
  /** null without an RTO objective. */
  readonly met: boolean | null
}

/** Each failover's measured RTO against the objective (the operations already measured, newest first). */
export function rtoResults(measured: ReadonlyArray<Omit<RtoResult, 'met'>>, rtoSeconds: number | undefined): RtoResult[] {
  return [...measured].sort((a, b) => b.startedAt - a.startedAt).map((entry) => ({ ...entry, met: rtoSeconds === undefined ? null : entry.rtoMs / 1000 <= rtoSeconds }))
}

export interface DrillRtoResult {
  readonly drill: string
  readonly startedAt: number
  /** Drill start → every partition of its copy writable, whole milliseconds. */
  readonly rtoMs: number
  /** null without an RTO objective. */
  readonly met: boolean | null
}

const RTO_WINDOW_MS = 30 * DAY_MS

/**
 * The drills' measured RTO against the RTO objective: a drill rehearses the failover on a copy, so its RTO is
 * the best evidence of the objective between real failovers. The succeeded drills of the last 30 days that
 * measured one, newest first; the figures as the API's schema holds them (whole, non-negative milliseconds).
 */
export function drillRtoResults(
  drills: ReadonlyArray<{ readonly id: string; readonly status: string; readonly startedAt: number; readonly rtoMs: number | null }>,
  rtoSeconds: number | undefined,
  now: number,
): DrillRtoResult[] {
  return drills
    .filter((drill): drill is typeof drill & { rtoMs: number } => drill.status === 'succeeded' && drill.rtoMs !== null && Number.isFinite(drill.rtoMs) && drill.startedAt >= now - RTO_WINDOW_MS)
    .sort((a, b) => b.startedAt - a.startedAt)
    .map((drill) => {
      const rtoMs = Math.max(0, Math.round(drill.rtoMs))
      return { drill: drill.id, startedAt: Math.round(drill.startedAt), rtoMs, met: rtoSeconds === undefined ? null : rtoMs / 1000 <= rtoSeconds }
    })
}
