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

/** How current the answering instance's copy of one control topic is. */
export const ControlTopicView = z.object({
  topic: z.string(),
  /** When a read of it last reached the topic's end (epoch ms); null before the first did. */
  readAt: z.number().int().nullable(),
  /** How old that copy was when this answer was made (ms); null before the first read. */
  ageMs: z.number().int().nonnegative().nullable(),
})
export type ControlTopicView = z.infer<typeof ControlTopicView>

/**
 * The control cluster as the answering instance sees it (server/ha/control-health.ts). It counts as unreachable once
 * nothing has answered for a session timeout (at least 5 s); then changes are refused with CONTROL_CLUSTER_UNAVAILABLE
 * while the mirrors running here go on, and everything this instance answers from the shared state is as old as
 * `viewAgeMs` says.
 */
export const ControlClusterStatus = z.object({
  /** MIRRORBOARD_CONTROL_BOOTSTRAP. */
  bootstrap: z.array(z.string()),
  /** MIRRORBOARD_CONTROL_GROUP: the consumer group, and the prefix of the control topics. */
  group: z.string(),
  reachable: z.boolean(),
  /** Since when it is what `reachable` says (epoch ms): unreachable since its last answer; reachable since its first answer after the last outage, or since this instance started. */
  since: z.number().int(),
  /** Its last answer to this instance (a status written and read, a heartbeat, a control topic read). */
  lastAnsweredAt: z.number().int(),
  /** The last error of a round trip since it last answered; null once it answers (or when it merely went silent). */
  lastError: z.string().nullable(),
  /** The last time it was unreachable, and how that ended; null when it never was since this instance started. */
  lastOutage: z
    .object({
      from: z.number().int(),
      to: z.number().int(),
      lastError: z.string().nullable(),
    })
    .nullable(),
  /** How old this instance's view of the shared state is: the oldest of its control topic copies (ms); null before each was read once. */
  viewAgeMs: z.number().int().nonnegative().nullable(),
  topics: z.array(ControlTopicView),
})
export type ControlClusterStatus = z.infer<typeof ControlClusterStatus>

export const InstanceList = z.object({
  /** False when MIRRORBOARD_CONTROL_BOOTSTRAP is unset: one instance runs every mirror. */
  highAvailability: z.boolean(),
  instances: z.array(Instance),
  /** The control cluster as the answering instance sees it. Several instances only. */
  control: ControlClusterStatus.optional(),
})
export type InstanceList = z.infer<typeof InstanceList>
