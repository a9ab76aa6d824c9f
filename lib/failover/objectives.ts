/**
 * A mirror's objectives (API.md §"Round 3" `config.objectives`: rpoSeconds, rpoRecords, rtoSeconds,
 * drillIntervalDays), read from its config wherever they are compared: the post-mortem, the drills' cadence.
 * Null when the config sets none (or sets something that is not objectives).
 */
import { ReportObjectives } from '../api/operation-report'

export function objectivesOf(config: object): ReportObjectives | null {
  const raw = 'objectives' in config ? config.objectives : undefined
  const parsed = ReportObjectives.safeParse(raw)
  return parsed.success && Object.keys(parsed.data).length > 0 ? parsed.data : null
}
