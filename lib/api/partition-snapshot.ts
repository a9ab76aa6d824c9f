import { z } from 'zod'
import { NonNegativeInt, Timestamp } from './common'
import { AtRisk, MirrorPartition } from './mirrors'

/** Where a log starts and ends, read at the snapshot's moment. */
export const SnapshotLogExtent = z.object({
  logStartOffset: NonNegativeInt,
  highWatermark: NonNegativeInt,
  logEndOffset: NonNegativeInt,
})

/**
 * GET /mirrors/{m}/partitions/{t}/{p}/snapshot: everything the partition page shows, read at one moment (`at`, its
 * "as of" stamp): the partition as the engine holds it, both logs' extents, the mirrored position and the records
 * and time at risk (lib/mirror/partition-snapshot.ts, through the failover plan's own function).
 */
export const PartitionSnapshot = z.object({
  /** When the logs were read: every figure below stands for this moment. */
  at: Timestamp,
  partition: MirrorPartition,
  /** How many partitions the mirrored topic has (topic actions act on all of them). */
  topicPartitions: NonNegativeInt,
  /** The source's log, read at `at`; null when the source did not answer. */
  source: SnapshotLogExtent.nullable(),
  /** The destination's log, read at `at`; null when it did not answer. */
  destination: SnapshotLogExtent.nullable(),
  /** Below this offset the destination holds the source's records (the failover plan's `mirroredOffset`). */
  mirroredOffset: NonNegativeInt,
  /** Null once the partition no longer mirrors (STOPPING, STOPPED, UNKNOWN). */
  atRisk: AtRisk.nullable(),
  /** Source high watermark − destination high watermark; a lower bound unless `offsetLagKnown`; null when unknown or stopped. */
  offsetLag: NonNegativeInt.nullable(),
  offsetLagKnown: z.boolean(),
  timeLagMs: NonNegativeInt.nullable(),
  timeLagKnown: z.boolean(),
})
export type PartitionSnapshot = z.infer<typeof PartitionSnapshot>
