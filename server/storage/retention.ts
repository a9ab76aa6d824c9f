import 'server-only'
import { deletes } from './cleaner/cleaner-config'
import type { LogSegments } from './log-segments'
import type { ResolvedConfig } from './partition-log-config'

/**
 * Time and size retention of a log whose cleanup policy deletes (Kafka's `deleteOldSegments`): whole sealed
 * segments from the oldest, while the next one starts at or below the high watermark and the segment is older
 * than retention.ms or the log is over retention.bytes without it. Returns the new log start offset (the
 * first kept segment's base), or null when nothing goes.
 */
export function retentionCut(
  segments: LogSegments,
  highWatermark: number,
  config: Pick<ResolvedConfig, 'cleanupPolicy' | 'retentionMs' | 'retentionBytes'>,
  now: number,
): number | null {
  if (!deletes(config.cleanupPolicy)) return null
  let totalSize = segments.totalSize
  let deletable = 0
  for (let i = 0; i < segments.count - 1; i++) {
    const segment = segments.at(i)
    const next = segments.at(i + 1)
    if (next.baseOffset > highWatermark) break
    const expired = config.retentionMs >= 0 && now - segment.maxTimestamp > config.retentionMs
    const oversized = config.retentionBytes >= 0 && totalSize - segment.size >= config.retentionBytes
    if (!expired && !oversized) break
    totalSize -= segment.size
    deletable++
  }
  return deletable === 0 ? null : segments.at(deletable).baseOffset
}
