import { z } from 'zod'
import { Name, PartitionIndex, commaList } from './common'
import { Fault, Run, Workload } from './demo'
import { EVENT_TYPES } from './event-types'
import { FAILURE_CODES } from '@/lib/mirror/failure-code'
import { MIRROR_PARTITION_STATES } from '@/lib/mirror/states'

export { EVENT_TYPES }

/**
 * Server-sent event names (API.md "Live updates"; listed in event-types.ts). Every event carries an id `<stream>:<sequence>`; a client
 * reconnecting with Last-Event-ID gets what it missed. `resync` says the server no longer holds what the
 * client missed (or restarted): refetch everything.
 */
export const EventType = z.enum(EVENT_TYPES)
export type EventType = z.infer<typeof EventType>

export const EventsQuery = z.object({
  types: commaList(EventType).optional().describe('Only these event names (comma-separated); all by default.'),
  lastEventId: z
    .string()
    .max(200)
    .optional()
    .describe('Resume after this event id, as the Last-Event-ID header does (for clients that reconnect by hand); the header wins.'),
})

export const ClusterChange = z.enum([
  'created',
  'topicCreated',
  'recordsAppended',
  'transactionCommitted',
  'transactionAborted',
  'producerClosed',
  'groupOffsetsCommitted',
  'topicDeleted',
  'partitionsCreated',
  'recordsDeleted',
  'topicConfigsChanged',
  'deleted',
])
export type ClusterChange = z.infer<typeof ClusterChange>

/** `cluster` event data: something changed on a cluster; refetch what shows it. */
export const ClusterEvent = z.object({
  cluster: Name,
  change: ClusterChange,
  topic: Name.optional(),
  partitions: z.array(PartitionIndex).optional(),
})
export type ClusterEvent = z.infer<typeof ClusterEvent>

/** `demo` event data (demo mode only): a scenario run advanced, a fault was injected or healed, a workload changed. */
export const DemoEvent = z.discriminatedUnion('change', [
  z.object({ change: z.literal('runUpdated'), run: Run }),
  z.object({ change: z.literal('faultChanged'), fault: Fault }),
  z.object({ change: z.literal('workloadChanged'), workload: Workload }),
])
export type DemoEvent = z.infer<typeof DemoEvent>

export const ResyncEvent = z.object({ reason: z.enum(['eventsDropped', 'serverRestarted']) })
export type ResyncEvent = z.infer<typeof ResyncEvent>

/**
 * `partition` and `lag` event data as a mirror page reads it (the fields it uses; the server sends more). The
 * browser reads them with plain checks that give what these give (components/data/mirror-partition-store.ts,
 * whose tests hold the two together), so zod stays out of the mirror page's bundle.
 */
const MirrorPartitionStateOfEvent = z.enum(MIRROR_PARTITION_STATES)

export const PartitionEvent = z.object({
  mirror: z.string(),
  topic: z.string(),
  partition: z.number().int(),
  from: MirrorPartitionStateOfEvent,
  to: MirrorPartitionStateOfEvent,
  at: z.number(),
  stateEpoch: z.number().int(),
  // A transition's failure details (absent from older servers and from the "state saved" notice).
  error: z.string().nullable().optional(),
  failureCode: z.enum(FAILURE_CODES).nullable().optional(),
  retryAttempt: z.number().int().optional(),
  nextRetryAt: z.number().nullable().optional(),
})
export type PartitionEvent = z.infer<typeof PartitionEvent>

export const LagEvent = z.object({
  mirror: z.string(),
  at: z.number(),
  partitions: z.array(
    z.object({
      topic: z.string(),
      partition: z.number().int(),
      offsetLag: z.number().nullable(),
      timeLagMs: z.number().nullable(),
      // Present on lower bounds only: an entry without them is current as of the event.
      lagKnown: z.literal(false).optional(),
      lagAsOf: z.number().nullable().optional(),
      timeLagFrom: z.number().nullable().optional(),
    }),
  ),
})
export type LagEvent = z.infer<typeof LagEvent>
