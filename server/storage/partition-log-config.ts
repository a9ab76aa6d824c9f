import 'server-only'
import { StorageError } from '@/lib/log/errors'
import { BATCH_HEADER_SIZE } from '@/lib/log/record-batch'
import { DEFAULT_COMPACTION_CONFIG } from './cleaner/cleaner-config'
import { processLogCleaner } from './cleaner/log-cleaner'
import { processDescriptorBudget } from './descriptor-budget'
import type { PartitionLogConfig } from './types'

/** A partition log's settings (Kafka's topic configs the log reads), their defaults and their checks. */

const DAY_MS = 24 * 60 * 60 * 1000
export const INT32_MAX = 2147483647
export const INT16_MAX = 32767

const DEFAULT_CONFIG: Required<Omit<PartitionLogConfig, 'now' | 'descriptorBudget' | 'cleaner'>> = {
  segmentBytes: 64 * 1024 * 1024,
  segmentMs: 7 * DAY_MS,
  indexIntervalBytes: 4096,
  retentionBytes: -1,
  retentionMs: 7 * DAY_MS,
  maxMessageBytes: 1048588,
  highWatermarkCheckpointIntervalMs: 5000,
  checkpointedHighWatermark: null,
  closeState: null,
  ...DEFAULT_COMPACTION_CONFIG,
}

export type ResolvedConfig = Required<PartitionLogConfig>

export function requireInteger(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new StorageError('VALIDATION_FAILED', `${name} must be an integer in [${min}, ${max}], got ${String(value)}`)
  }
  return value
}

/** The log's settings with defaults, validated (StorageError VALIDATION_FAILED when one is out of range). */
export function resolvePartitionLogConfig(config: PartitionLogConfig): ResolvedConfig {
  const resolved: ResolvedConfig = { ...DEFAULT_CONFIG, now: Date.now, descriptorBudget: processDescriptorBudget, cleaner: processLogCleaner, ...config }
  requireInteger('segmentBytes', resolved.segmentBytes, BATCH_HEADER_SIZE, INT32_MAX)
  requireInteger('indexIntervalBytes', resolved.indexIntervalBytes, 0, INT32_MAX)
  requireInteger('maxMessageBytes', resolved.maxMessageBytes, BATCH_HEADER_SIZE)
  requireInteger('deleteRetentionMs', resolved.deleteRetentionMs, 0)
  requireInteger('minCompactionLagMs', resolved.minCompactionLagMs, 0)
  if (!(resolved.minCleanableDirtyRatio >= 0 && resolved.minCleanableDirtyRatio <= 1)) {
    throw new StorageError('VALIDATION_FAILED', `minCleanableDirtyRatio must be in [0, 1], got ${String(resolved.minCleanableDirtyRatio)}`)
  }
  if (!['delete', 'compact', 'compact,delete'].includes(resolved.cleanupPolicy)) {
    throw new StorageError('VALIDATION_FAILED', `cleanupPolicy must be delete, compact or compact,delete, got ${String(resolved.cleanupPolicy)}`)
  }
  return resolved
}
