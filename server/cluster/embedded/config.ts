import 'server-only'
import { ClusterError } from '../errors'

/** Cluster-wide settings, in Kafka's broker-config vocabulary. */
export interface EmbeddedClusterConfig {
  /** Kafka `replica.lag.time.max.ms`: a follower that has not caught up for this long leaves the ISR. */
  replicaLagTimeMaxMs: number
  /** Kafka `transaction.max.timeout.ms` is not modelled; this is the timeout given to every transactional id. */
  transactionTimeoutMs: number
  /** Kafka `request.timeout.ms`: how long an acks=all append waits for the high watermark. */
  requestTimeoutMs: number
  /** Kafka `group.consumer.session.timeout.ms`: members that stop heartbeating leave their group after this. */
  groupSessionTimeoutMs: number
  /** Kafka `default.replication.factor`, capped at the broker count. */
  defaultReplicationFactor: number
  /** First producer id the cluster hands out (Kafka starts at 0); lets demos reproduce the KIP's 4001, 4002, ... */
  firstProducerId: number
  /** Kafka allocates producer ids in blocks; a restart skips the rest of the block, so an id is never reused. */
  producerIdBlockSize: number
  /** Largest chunk a follower copies in one fetch (Kafka `replica.fetch.max.bytes`). */
  replicaFetchMaxBytes: number
  /** Kafka `log.segment.bytes` for topics without `segment.bytes`. */
  segmentBytes: number
  /** Kafka `log.retention.check.interval.ms`: how often a tick applies retention.ms / retention.bytes on leaders. */
  retentionCheckIntervalMs: number
  /** When set, the cluster calls `tick()` itself at this interval (the app); tests leave it unset and tick by hand. */
  tickIntervalMs: number | null
}

export const DEFAULT_EMBEDDED_CLUSTER_CONFIG: EmbeddedClusterConfig = {
  replicaLagTimeMaxMs: 30_000,
  transactionTimeoutMs: 60_000,
  requestTimeoutMs: 30_000,
  groupSessionTimeoutMs: 45_000,
  defaultReplicationFactor: 3,
  firstProducerId: 0,
  producerIdBlockSize: 1000,
  replicaFetchMaxBytes: 1 << 20,
  segmentBytes: 64 << 20,
  retentionCheckIntervalMs: 300_000,
  tickIntervalMs: null,
}

export function resolveClusterConfig(overrides: Partial<EmbeddedClusterConfig> | undefined): EmbeddedClusterConfig {
  const config = { ...DEFAULT_EMBEDDED_CLUSTER_CONFIG, ...overrides }
  const positive: Array<keyof EmbeddedClusterConfig> = [
    'replicaLagTimeMaxMs',
    'transactionTimeoutMs',
    'requestTimeoutMs',
    'groupSessionTimeoutMs',
    'defaultReplicationFactor',
    'producerIdBlockSize',
    'replicaFetchMaxBytes',
    'segmentBytes',
    'retentionCheckIntervalMs',
  ]
  for (const key of positive) {
    const value = config[key]
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new ClusterError('VALIDATION_FAILED', `cluster config ${key} must be a positive integer, got ${String(value)}`)
    }
  }
  if (!Number.isSafeInteger(config.firstProducerId) || config.firstProducerId < 0) {
    throw new ClusterError('VALIDATION_FAILED', `cluster config firstProducerId must be a non-negative integer`)
  }
  if (config.tickIntervalMs !== null && (!Number.isFinite(config.tickIntervalMs) || config.tickIntervalMs <= 0)) {
    throw new ClusterError('VALIDATION_FAILED', `cluster config tickIntervalMs must be positive or null`)
  }
  return config
}

// TOPIC CONFIGS

type ConfigRule = 'long' | 'int' | 'boolean' | 'ratio' | 'string' | readonly string[]

const LONG = /^-?\d{1,19}$/

/**
 * Kafka's topic-level configs (the names a mirror may sync from a real broker), each with the shape of its
 * value. Unknown names are refused as Kafka refuses them.
 */
const TOPIC_CONFIG_RULES: Record<string, ConfigRule> = {
  'cleanup.policy': ['delete', 'compact', 'compact,delete', 'delete,compact'],
  'compression.type': ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'],
  'compression.gzip.level': 'int',
  'compression.lz4.level': 'int',
  'compression.zstd.level': 'int',
  'delete.retention.ms': 'long',
  'file.delete.delay.ms': 'long',
  'flush.messages': 'long',
  'flush.ms': 'long',
  'follower.replication.throttled.replicas': 'string',
  'index.interval.bytes': 'int',
  'leader.replication.throttled.replicas': 'string',
  'local.retention.bytes': 'long',
  'local.retention.ms': 'long',
  'max.compaction.lag.ms': 'long',
  'max.message.bytes': 'int',
  'message.downconversion.enable': 'boolean',
  'message.format.version': 'string',
  'message.timestamp.after.max.ms': 'long',
  'message.timestamp.before.max.ms': 'long',
  'message.timestamp.difference.max.ms': 'long',
  'message.timestamp.type': ['CreateTime', 'LogAppendTime'],
  'min.cleanable.dirty.ratio': 'ratio',
  'min.compaction.lag.ms': 'long',
  'min.insync.replicas': 'int',
  preallocate: 'boolean',
  'remote.log.copy.disable': 'boolean',
  'remote.log.delete.on.disable': 'boolean',
  'remote.storage.enable': 'boolean',
  'retention.bytes': 'long',
  'retention.ms': 'long',
  'segment.bytes': 'int',
  'segment.index.bytes': 'int',
  'segment.jitter.ms': 'long',
  'segment.ms': 'long',
  'unclean.leader.election.enable': 'boolean',
  'mirror.support.unclean.leader.election': 'boolean',
  'mirror.name': 'string',
}

/** A topic config Kafka knows. */
export function isTopicConfigName(key: string): boolean {
  return Object.hasOwn(TOPIC_CONFIG_RULES, key)
}

function isValidConfigValue(rule: ConfigRule, value: string): boolean {
  if (Array.isArray(rule)) return rule.includes(value)
  switch (rule) {
    case 'long':
      return LONG.test(value) && Number.isSafeInteger(Number(value)) && Number(value) >= -1
    case 'int':
      return LONG.test(value) && Number(value) >= -1 && Number(value) <= 2 ** 31 - 1
    case 'boolean':
      return value === 'true' || value === 'false'
    case 'ratio': {
      const n = Number(value)
      return value.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 1
    }
    default:
      return value.length <= 4096
  }
}

/** Throws VALIDATION_FAILED naming the first bad entry; checks everything before anything is applied. */
export function validateTopicConfigs(configs: unknown): Record<string, string> {
  if (configs === undefined) return {}
  if (configs === null || typeof configs !== 'object' || Array.isArray(configs)) {
    throw new ClusterError('VALIDATION_FAILED', 'topic configs must be an object of strings')
  }
  const result: Record<string, string> = {}
  for (const [key, value] of Object.entries(configs)) {
    const rule = TOPIC_CONFIG_RULES[key]
    if (rule === undefined) throw new ClusterError('VALIDATION_FAILED', `unknown topic config ${JSON.stringify(key)}`, { details: { config: key } })
    if (typeof value !== 'string' || !isValidConfigValue(rule, value)) {
      throw new ClusterError('VALIDATION_FAILED', `invalid value ${JSON.stringify(value)} for topic config ${key}`, { details: { config: key } })
    }
    result[key] = value
  }
  if (result['min.insync.replicas'] !== undefined && Number(result['min.insync.replicas']) < 1) {
    throw new ClusterError('VALIDATION_FAILED', 'min.insync.replicas must be at least 1', { details: { config: 'min.insync.replicas' } })
  }
  if (result['segment.bytes'] !== undefined && Number(result['segment.bytes']) < 14) {
    throw new ClusterError('VALIDATION_FAILED', 'segment.bytes must be at least 14', { details: { config: 'segment.bytes' } })
  }
  return result
}

export function booleanConfig(configs: Record<string, string>, key: string): boolean {
  return configs[key] === 'true'
}

export function integerConfig(configs: Record<string, string>, key: string, fallback: number): number {
  const raw = configs[key]
  if (raw === undefined) return fallback
  const n = Number(raw)
  return Number.isSafeInteger(n) ? n : fallback
}
