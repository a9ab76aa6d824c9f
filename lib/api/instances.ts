import { z } from 'zod'

/** One Mirrorboard instance of the group sharing the mirroring work (issue #40; docs/high-availability.md). */
export const Instance = z.object({
  id: z.string(),
  /** Its last status is younger than the session timeout (a dead one's mirrors have gone to the others by then). */
  alive: z.boolean(),
  version: z.string(),
  /** The mirrors it runs, by name. */
  mirrors: z.array(z.string()),
  /** When it last wrote its status (epoch ms); null for a single instance, which has no group. */
  lastHeartbeatAt: z.number().int().nullable(),
  /** The instance that answered this request. */
  self: z.boolean(),
  /** Where the other instances reach its API (MIRRORBOARD_ADVERTISED_URL); null when it advertises none. Several instances only. */
  url: z.string().nullable().optional(),
  /** It leads the group (assigns the mirrors), as the answering instance last saw the group. Several instances only. */
  leader: z.boolean().optional(),
  /**
   * Mirrors whose writes another instance fenced at this one (issue #40: it had lost them, paused or cut off, and
   * its late write was refused by Kafka and never applied); it stopped each at once. Newest last. Several instances only.
   */
  fenced: z
    .array(z.object({ mirror: z.string(), cluster: z.string(), transactionalId: z.string(), at: z.number().int() }))
    .optional(),
})
export type Instance = z.infer<typeof Instance>

export const InstanceList = z.object({
  /** False when MIRRORBOARD_CONTROL_BOOTSTRAP is unset: one instance runs every mirror. */
  highAvailability: z.boolean(),
  instances: z.array(Instance),
})
export type InstanceList = z.infer<typeof InstanceList>
