import 'server-only'
import type { PartitionLogConfig } from '../types'

/** What crash-writer.ts prints, one JSON object per line, each after the append is durable. */
export type CrashWriterLine =
  | { kind: 'ready'; logEndOffset: number; leaderEpoch: number }
  | { kind: 'data'; baseOffset: number; lastOffset: number; values: string[]; producerId: number | null; transactional: boolean; leaderEpoch: number }
  | { kind: 'marker'; offset: number; type: 'COMMIT' | 'ABORT'; producerId: number; leaderEpoch: number }

/** Small segments so that kills also land around segment rolls. */
export const CRASH_WRITER_CONFIG: PartitionLogConfig = { segmentBytes: 48 * 1024, indexIntervalBytes: 1024 }
