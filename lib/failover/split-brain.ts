/**
 * The split-brain figures of one mirror (lib/api/split-brain.ts) from what the watch saw per STOPPED
 * partition: its old source's log end offset at the failover (the baseline) and now. Records written since
 * the failover are `max(0, now − baseline)` per partition (a log that shrank, say by delete-records, is
 * not a write), added up per topic.
 */
import type { SplitBrain } from '../api/split-brain'

export interface WatchedPartition {
  readonly topic: string
  readonly partition: number
  readonly baselineLogEndOffset: number
  readonly since: number
  readonly logEndOffset: number
  /** Timestamp of the newest record beyond the baseline; null until one is seen. */
  readonly latestWriteAt: number | null
}

export function recordsWritten(partition: Pick<WatchedPartition, 'baselineLogEndOffset' | 'logEndOffset'>): number {
  return Math.max(0, partition.logEndOffset - partition.baselineLogEndOffset)
}

export function splitBrainOf(oldSourceCluster: string, partitions: readonly WatchedPartition[], checkedAt: number | null, sourceReachable: boolean): SplitBrain {
  const topics = new Map<string, { recordsWritten: number; latestWriteAt: number | null; partitionsWritten: number }>()
  let total = 0
  let latest: number | null = null
  let since = Number.POSITIVE_INFINITY
  for (const partition of partitions) {
    since = Math.min(since, partition.since)
    const written = recordsWritten(partition)
    if (written === 0) continue
    total += written
    const topic = topics.get(partition.topic) ?? { recordsWritten: 0, latestWriteAt: null, partitionsWritten: 0 }
    topic.recordsWritten += written
    topic.partitionsWritten += 1
    if (partition.latestWriteAt !== null) {
      topic.latestWriteAt = Math.max(topic.latestWriteAt ?? 0, partition.latestWriteAt)
      latest = Math.max(latest ?? 0, partition.latestWriteAt)
    }
    topics.set(partition.topic, topic)
  }
  return {
    oldSourceCluster,
    since: Number.isFinite(since) ? since : (checkedAt ?? 0),
    watchedPartitions: partitions.length,
    recordsWritten: total,
    latestWriteAt: latest,
    checkedAt,
    sourceReachable,
    topics: [...topics.entries()]
      .map(([topic, figures]) => ({ topic, ...figures }))
      .sort((a, b) => b.recordsWritten - a.recordsWritten || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
  }
}
