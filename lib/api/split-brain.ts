import { z } from 'zod'
import { Name, NonNegativeInt, Timestamp } from './common'
import { Role } from './session'

/**
 * The split-brain guard of a mirror with STOPPED partitions (part of the mirror summary): producers that
 * still write to the old source after a failover are the classic DR accident. How many records producers
 * wrote to the old source since the failover (Mirrorboard's own markers and PID resets left out), per topic,
 * with the time of the newest one and who wrote them. A failback truncates them away; once the failback
 * mirror has itself failed over, the old source is the active cluster again and the guard retires.
 */
export const SplitBrainTopic = z.object({
  topic: Name,
  recordsWritten: NonNegativeInt,
  /** Timestamp of the newest record written since the failover; null when none was. */
  latestWriteAt: Timestamp.nullable(),
  partitionsWritten: NonNegativeInt,
})

/** A producer that wrote to the old source since the failover (from the batches it wrote there). */
export const SplitBrainProducer = z.object({
  /** null: records written without a producer id (a plain, non-idempotent producer). */
  producerId: NonNegativeInt.nullable(),
  producerEpoch: z.number().int().min(0).nullable(),
  /** The transactional id the old source's cluster knows for it; null when it has none or the cluster does not say. */
  transactionalId: z.string().nullable(),
  records: NonNegativeInt,
  latestWriteAt: Timestamp.nullable(),
  topics: z.array(Name),
})
export type SplitBrainProducer = z.infer<typeof SplitBrainProducer>

/**
 * The failover (or switchover) that stopped the watched partitions, newest first: which operation and who
 * confirmed it, the operation's own `requestedBy` (a person's name and address, or the token's name).
 */
export const SplitBrainFailover = z.object({
  operationId: z.string(),
  kind: z.string(),
  startedAt: Timestamp,
  // actorName: the person's name and address when they signed in through the identity provider.
  requestedBy: z.object({ actor: z.string(), actorName: z.string().optional(), role: Role.nullable() }).nullable(),
})
export type SplitBrainFailover = z.infer<typeof SplitBrainFailover>

export const SplitBrain = z.object({
  oldSourceCluster: Name,
  /** The failover these counts start at (or, with no failover on record, when watching began). */
  since: Timestamp,
  watchedPartitions: NonNegativeInt,
  recordsWritten: NonNegativeInt,
  latestWriteAt: Timestamp.nullable(),
  /** When the old source last answered; null before it ever did. */
  checkedAt: Timestamp.nullable(),
  sourceReachable: z.boolean(),
  /** Topics with records written since the failover, most written first. */
  topics: z.array(SplitBrainTopic),
  /** Who wrote them, most records first (at most 20): producer ids and, where known, transactional ids. */
  producers: z.array(SplitBrainProducer).optional(),
  /** Records on the old source since the failover that Mirrorboard wrote itself (markers, PID resets): never counted. */
  ownRecordsIgnored: NonNegativeInt.optional(),
  /** Offsets beyond what the guard has read yet (a large burst is read over several seconds): not counted yet. */
  unscannedOffsets: NonNegativeInt.optional(),
  /** The operation that failed the mirror over; null when none is on record (it predates this data dir). */
  failover: SplitBrainFailover.nullable().optional(),
})
export type SplitBrain = z.infer<typeof SplitBrain>
