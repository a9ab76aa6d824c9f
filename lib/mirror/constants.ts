/**
 * KIP-1279 constants and configuration defaults (KIP-1279.md §2.4, §2.5, §3.2, §7).
 * Config keys are Kafka's own, so operators can paste them from the KIP or the prototype's docs.
 */

/** A batch epoch within this distance of the destination leader epoch triggers a proactive bump (§3.2). */
export const LEADER_EPOCH_BUMP_THRESHOLD = 3

/** A bump targets the source epoch plus this, so the destination absorbs several source elections (§3.2). */
export const LEADER_EPOCH_BUMP_INCREMENT = 10

/** `retryAttempt` of a failure that must not be retried automatically (`NON_RETRYABLE_ATTEMPT`). */
export const NON_RETRYABLE_ATTEMPT = -1

/** Kafka's "no epoch" / "no offset" marker, as in the (-1, -1) last mirror position. */
export const UNDEFINED_EPOCH = -1
export const UNDEFINED_OFFSET = -1

/** The destination's internal compacted topic holding per-partition mirror state (§5.1). */
export const MIRROR_STATE_TOPIC = '__mirror_state'

/** Topic-level switch for ULE recovery; never synced from the source (§3.5, §7.2). */
export const MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION = 'mirror.support.unclean.leader.election'

export interface RetryConfig {
  /** `mirror.failed.retry.initial.backoff.ms` */
  readonly initialBackoffMs: number
  /** `mirror.failed.retry.max.backoff.ms` */
  readonly maxBackoffMs: number
  /** `mirror.failed.retry.max.attempts`; 0 disables automatic retries. */
  readonly maxAttempts: number
}

export const DEFAULT_RETRY_CONFIG: RetryConfig = {
  initialBackoffMs: 100,
  maxBackoffMs: 300_000,
  maxAttempts: 20,
}

/** Broker-level (destination) defaults, KIP-1279.md §7.1. Keys whose default the KIP leaves open are omitted. */
export const BROKER_MIRROR_CONFIG_DEFAULTS = {
  'mirror.coordinator.threads': 1,
  'mirror.coordinator.write.timeout.ms': 5000,
  'mirror.coordinator.append.linger.ms': 10,
  'mirror.coordinator.load.buffer.size': 5_242_880,
  'mirror.state.topic.num.partitions': 50,
  'mirror.state.topic.replication.factor': 3,
  'mirror.num.replica.fetchers': 1,
  'mirror.metadata.refresh.interval.ms': 60_000,
  'mirror.failed.retry.initial.backoff.ms': DEFAULT_RETRY_CONFIG.initialBackoffMs,
  'mirror.failed.retry.max.backoff.ms': DEFAULT_RETRY_CONFIG.maxBackoffMs,
  'mirror.failed.retry.max.attempts': DEFAULT_RETRY_CONFIG.maxAttempts,
} as const

/**
 * Default `topic.properties.exclude` (KIP-1279.md §1.4): source topic configs that are never copied,
 * because they describe the source cluster's replication or clients rather than the data.
 */
export const DEFAULT_TOPIC_PROPERTIES_EXCLUDE = [
  'follower.replication.throttled.replicas',
  'leader.replication.throttled.replicas',
  'message.timestamp.difference.max.ms',
  'log.message.timestamp.before.max.ms',
  'log.message.timestamp.after.max.ms',
  'message.timestamp.type',
  'unclean.leader.election.enable',
  'min.insync.replicas',
  'mirror.replication.throttled.replicas',
  MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION,
] as const

/**
 * Configs that are never synced whatever `topic.properties.exclude` says (§1.4). `remote.storage.enable`
 * is the source's storage choice: a source with tiered storage is mirrored normally (its remote data is
 * fetched like any other), while the same flag on the destination fails the partition (#36), so copying
 * it would fail every mirror of a tiered source.
 */
export const ALWAYS_EXCLUDED_TOPIC_PROPERTIES = ['mirror.name', 'remote.storage.enable'] as const

/**
 * Mirror-level defaults (stored per mirror), KIP-1279.md §7.3. List-valued filters are arrays of
 * regular expressions; an empty `topics.include` means "only explicitly started topics".
 */
export const MIRROR_CONFIG_DEFAULTS = {
  'request.timeout.ms': 30_000,
  'connections.max.idle.ms': 600_000,
  'security.protocol': 'PLAINTEXT',
  'sasl.mechanism': 'PLAIN',
  'fetch.wait.max.ms': 1000,
  'fetch.backoff.ms': 1000,
  'fetch.min.bytes': 1,
  'fetch.response.max.bytes': 10 * 1024 * 1024,
  'fetch.max.bytes': 1024 * 1024,
  'socket.timeout.ms': 30_000,
  'socket.receive.buffer.bytes': 64 * 1024,
  'topics.include': [] as readonly string[],
  'topics.exclude': ['__.*'] as readonly string[],
  'groups.include': ['.*'] as readonly string[],
  'groups.exclude': [] as readonly string[],
  'acls.include': ['*'] as readonly string[],
  'topic.properties.exclude': DEFAULT_TOPIC_PROPERTIES_EXCLUDE as readonly string[],
} as const

/** Failure messages of KIP-1279.md §2.4, reused verbatim so operators can search for them. */
export const FAILURE_MESSAGES = {
  divergenceWithoutUncleanLeaderElectionSupport:
    'Detected log truncation during mirroring. This implies unclean leader election in source cluster, ' +
    `but ${MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION} is disabled for this topic.`,
  sourceTopicDeleted: 'The source topic is deleted.',
  sourceClusterIdChanged: 'Source cluster ID changed for mirror.',
  tieredStorageEnabled: 'Mirroring is not supported for partitions with tiered storage enabled.',
  mirrorLoop: 'Detected mirror loop for mirror.',
} as const
