import { z } from 'zod'
import { Name, NonNegativeInt, Timestamp } from './common'
import { MirrorObjectives } from './mirrors'

const ComplianceCount = z.object({
  from: Timestamp,
  to: Timestamp,
  met: NonNegativeInt,
  breached: NonNegativeInt,
  unknown: NonNegativeInt,
  notRecorded: NonNegativeInt,
  /** met / recorded minutes; null when none was recorded. */
  metShare: z.number().min(0).max(1).nullable(),
})

/**
 * GET /mirrors/{m}/objectives (issue #34): the mirror's objectives, its recovery point now against them, how
 * much of the last 24 hours and 30 days (per minute, lib/mirror/objective-compliance.ts) the RPO objective was
 * met, and each failover's and drill's measured RTO against the RTO objective.
 */
export const MirrorObjectivesResponse = z.object({
  mirror: Name,
  objectives: MirrorObjectives.nullable(),
  current: z.object({
    records: NonNegativeInt.nullable(),
    seconds: z.number().nonnegative().nullable(),
    /** false: a source is silent or a partition is not MIRRORING: the figures are lower bounds. */
    known: z.boolean(),
    /** Against the RPO objective; null without one. Unknown is never shown as met. */
    status: z.enum(['met', 'breached', 'unknown']).nullable(),
  }),
  /** null without an RPO objective. */
  rpoCompliance: z
    .object({
      last24h: ComplianceCount,
      last30d: ComplianceCount,
      /** The last 30 UTC days, oldest first. */
      days: z.array(ComplianceCount),
    })
    .nullable(),
  /** The mirror's succeeded failovers and switchovers in the last 30 days, newest first, with their measured RTO. */
  rto: z.array(
    z.object({
      operation: z.string(),
      type: z.enum(['planned', 'unplanned']),
      startedAt: Timestamp,
      rtoMs: NonNegativeInt,
      met: z.boolean().nullable(),
    }),
  ),
  /** The mirror's succeeded drills in the last 30 days that measured an RTO (start → every partition of the copy writable), newest first, against the RTO objective. */
  drills: z.array(
    z.object({
      drill: z.string(),
      startedAt: Timestamp,
      rtoMs: NonNegativeInt,
      met: z.boolean().nullable(),
    }),
  ),
})
export type MirrorObjectivesResponse = z.infer<typeof MirrorObjectivesResponse>
