import 'server-only'

/** Kafka `cleanup.policy`, normalised ("delete,compact" is "compact,delete"). */
export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete'

export interface CompactionConfig {
  /** Kafka `cleanup.policy`. Default "delete": retention applies, the cleaner leaves the log alone. */
  cleanupPolicy: CleanupPolicy
  /** Kafka `delete.retention.ms`: how long a tombstone (and an emptied transaction's marker) outlives its first clean. Default 1 day. */
  deleteRetentionMs: number
  /** Kafka `min.cleanable.dirty.ratio`: the background cleaner picks a log once dirty / cleanable bytes reach this. Default 0.5. */
  minCleanableDirtyRatio: number
  /** Kafka `min.compaction.lag.ms`: a segment whose newest record is younger than this is not cleaned yet. Default 0. */
  minCompactionLagMs: number
}

export const DEFAULT_COMPACTION_CONFIG: CompactionConfig = {
  cleanupPolicy: 'delete',
  deleteRetentionMs: 24 * 60 * 60 * 1000,
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
}

export function compacts(policy: CleanupPolicy): boolean {
  return policy !== 'delete'
}

export function deletes(policy: CleanupPolicy): boolean {
  return policy !== 'compact'
}

function parsePolicy(value: string): CleanupPolicy | undefined {
  const parts = new Set(value.split(',').map((p) => p.trim().toLowerCase()))
  if (parts.size === 0 || [...parts].some((p) => p !== 'compact' && p !== 'delete')) return undefined
  if (parts.has('compact')) return parts.has('delete') ? 'compact,delete' : 'compact'
  return 'delete'
}

function nonNegativeInteger(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,16}$/.test(value)) return undefined
  const n = Number(value)
  return Number.isSafeInteger(n) ? n : undefined
}

/**
 * The cleaner settings of a topic's configs (Kafka's names; the cluster validated them already). Applies to
 * any topic, mirrored ones included: a mirror copies `cleanup.policy` from its source like any other config.
 */
export function compactionConfigOfTopic(configs: Readonly<Record<string, string>>): Partial<CompactionConfig> {
  const out: Partial<CompactionConfig> = {}
  const policy = configs['cleanup.policy'] === undefined ? undefined : parsePolicy(configs['cleanup.policy'])
  if (policy) out.cleanupPolicy = policy
  const deleteRetentionMs = nonNegativeInteger(configs['delete.retention.ms'])
  if (deleteRetentionMs !== undefined) out.deleteRetentionMs = deleteRetentionMs
  const lag = nonNegativeInteger(configs['min.compaction.lag.ms'])
  if (lag !== undefined) out.minCompactionLagMs = lag
  const ratio = configs['min.cleanable.dirty.ratio'] === undefined ? Number.NaN : Number(configs['min.cleanable.dirty.ratio'])
  if (ratio >= 0 && ratio <= 1) out.minCleanableDirtyRatio = ratio
  return out
}
