import 'server-only'
import type { LogCleaner } from '../cleaner/log-cleaner'
import type { PartitionLogConfig } from '../types'

/** What compaction-crash-writer.ts prints, one JSON object per line, each after the append is durable. */
export type CompactionWriterLine = { kind: 'ready'; logEndOffset: number } | { kind: 'ack'; offset: number; key: string; value: string }

/** Small segments so that passes are frequent and kills land inside offset-map builds, rewrites and swaps. */
export function compactionCrashConfig(cleaner: LogCleaner): PartitionLogConfig {
  return { segmentBytes: 8 * 1024, indexIntervalBytes: 512, cleanupPolicy: 'compact', cleaner }
}
