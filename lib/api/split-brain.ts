import { z } from 'zod'
import { Name, NonNegativeInt, Timestamp } from './common'

/**
 * The split-brain guard of a mirror with STOPPED partitions (part of the mirror summary): producers that
 * still write to the old source after a failover are the classic DR accident. How many records the old
 * source took since the failover, per topic, with the time of the newest one. A failback truncates them
 * away.
 */
export const SplitBrainTopic = z.object({
  topic: Name,
  recordsWritten: NonNegativeInt,
  /** Timestamp of the newest record written since the failover; null when none was. */
  latestWriteAt: Timestamp.nullable(),
  partitionsWritten: NonNegativeInt,
})

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
})
export type SplitBrain = z.infer<typeof SplitBrain>
