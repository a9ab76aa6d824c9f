import { z } from 'zod'
import { MirrorPartitionState } from './mirrors'
import { NonNegativeInt, Timestamp } from './common'

/**
 * A mirror's incident timeline (lib/overview/mirror-timeline.ts): its partitions' transitions as mirror-level
 * events, oldest first — partitions that changed together in one entry, a retry storm collapsed into one entry
 * with the most failures any partition had in it.
 */
export const MirrorTimelineEntry = z.object({
  kind: z.enum(['change', 'storm']),
  from: MirrorPartitionState,
  to: MirrorPartitionState,
  at: Timestamp,
  until: Timestamp,
  partitions: NonNegativeInt,
  transitions: NonNegativeInt,
  reason: z.string(),
  error: z.string().nullable(),
  failures: NonNegativeInt.nullable(),
  /** A storm's states, "FAILED ⇄ MIRRORING". */
  path: z.string().nullable(),
  /** A storm still going on (some of its partitions are FAILED now): it takes in the retries under way. */
  ongoing: z.boolean().optional(),
})
export type MirrorTimelineEntry = z.infer<typeof MirrorTimelineEntry>

export const MirrorTimeline = z.object({ entries: z.array(MirrorTimelineEntry) })
export type MirrorTimeline = z.infer<typeof MirrorTimeline>
