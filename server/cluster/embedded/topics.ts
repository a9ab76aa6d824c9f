import 'server-only'
import { randomBytes } from 'node:crypto'
import { rm } from 'node:fs/promises'
import type { PartitionLogApi } from '@/server/storage/types'
import { resolvePartitionLogConfig } from '@/server/storage/partition-log'
import { ClusterError, toClusterError } from '../errors'
import type { TopicDescription, TopicPartition } from '../ports'
import type { ClusterDirectory } from './cluster-directory'
import { isTopicConfigName, validateTopicConfigs } from './config'
import { assignReplicas, collidingTopicName, validateCount, validateOffset, validateTopicId, validateTopicName, type TopicMetadata } from './metadata'
import { ReplicatedPartition } from './replicated-partition'
import { forEachConcurrently } from '@/server/util/cooperative'

/** Partitions whose logs are opened at once when a topic is created or grown. */
export const LOG_OPEN_CONCURRENCY = 16

export interface CreateTopicSpec {
  name: string
  partitions: number
  replicationFactor?: number
  configs?: Record<string, string>
  /** The id to give the topic (a mirror topic pre-created with its source's id); a new one by default. */
  topicId?: string
}

export const MAX_PARTITIONS = 10_000

/**
 * Topic administration (Kafka's CreateTopics, CreatePartitions, DeleteTopics, the config APIs) and the rule
 * every client write obeys: internal topics and read-only (mirror) topics refuse it.
 */
export class Topics {
  constructor(
    private readonly directory: ClusterDirectory,
    /** What else forgets a deleted topic (round-robin state, group offsets, transactions), in order. */
    private readonly onTopicDeleted: (topic: string) => Promise<void>,
  ) {}

  /** The names describeTopics() would describe, in its order, for a caller that describes them one at a time. */
  topicNames(): string[] {
    const { directory } = this
    directory.ensureReachable()
    return Object.values(directory.metadata.topics)
      .filter((t) => !t.internal)
      .map((t) => t.name)
      .sort((a, b) => a.localeCompare(b))
  }

  describeTopics(topics?: string[]): TopicDescription[] {
    const { directory } = this
    directory.ensureReachable()
    if (topics !== undefined && (!Array.isArray(topics) || topics.some((name) => typeof name !== 'string'))) {
      throw new ClusterError('VALIDATION_FAILED', 'topics must be an array of names')
    }
    if (topics === undefined) {
      return Object.values(directory.metadata.topics)
        .filter((t) => !t.internal)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((t) => directory.describeTopic(t))
    }
    return topics.flatMap((name) => {
      const topic = directory.topicNamed(name)
      return topic ? [directory.describeTopic(topic)] : []
    })
  }

  validateNewTopic(name: string, partitions: unknown, replicationFactor: unknown): { partitions: number; replicationFactor: number } {
    const { directory } = this
    if (directory.topicNamed(name)) throw new ClusterError('CONFLICT', `topic ${name} already exists in ${directory.name}`, { details: { topic: name } })
    const collision = collidingTopicName(name, Object.keys(directory.metadata.topics))
    if (collision) throw new ClusterError('CONFLICT', `topic ${name} collides with existing topic ${collision} ('.' and '_' are interchangeable in Kafka metric names)`)
    const count = validateCount(partitions, 'partitions', MAX_PARTITIONS)
    const brokers = directory.metadata.brokerIds.length
    const rf = replicationFactor === undefined ? Math.min(directory.config.defaultReplicationFactor, brokers) : validateCount(replicationFactor, 'replicationFactor', brokers)
    return { partitions: count, replicationFactor: rf }
  }

  async createTopic(spec: CreateTopicSpec): Promise<TopicDescription> {
    this.directory.ensureReachable()
    const name = validateTopicName(spec?.name)
    const { partitions, replicationFactor } = this.validateNewTopic(name, spec.partitions, spec.replicationFactor)
    const configs = validateTopicConfigs(spec.configs)
    const topicId = spec.topicId === undefined ? this.newTopicId() : this.unusedTopicId(validateTopicId(spec.topicId))
    const topic: TopicMetadata = { name, topicId, internal: false, replicationFactor, configs, readOnly: false, mirror: null, partitions: [] }
    await this.addTopic(topic, partitions)
    return this.directory.describeTopic(topic)
  }

  /** Kafka refuses a topic id another topic has (KIP-1279.md §6.1, JR59.3: TOPIC_ALREADY_EXISTS). */
  unusedTopicId(topicId: string): string {
    const sameId = Object.values(this.directory.metadata.topics).find((t) => t.topicId === topicId)
    if (sameId) {
      throw new ClusterError('CONFLICT', `topic id ${topicId} is already used by topic ${sameId.name} in ${this.directory.name}`, { details: { topicId, topic: sameId.name } })
    }
    return topicId
  }

  newTopicId(): string {
    for (;;) {
      const id = randomBytes(16).toString('base64url')
      if (!Object.values(this.directory.metadata.topics).some((t) => t.topicId === id)) return id
    }
  }

  async addTopic(topic: TopicMetadata, partitionCount: number): Promise<void> {
    this.directory.metadata.topics[topic.name] = topic
    await this.addPartitions(topic, partitionCount)
  }

  /**
   * New partitions: placed round-robin, led by their first alive replica, durable in the metadata before any
   * log exists. They are registered at once (describable, LEADER_NOT_AVAILABLE until their logs are open);
   * the broker lock keeps brokers from stopping or starting while their logs are being opened.
   */
  async addPartitions(topic: TopicMetadata, totalCount: number): Promise<void> {
    const { directory } = this
    const first = topic.partitions.length
    const assignments = assignReplicas(topic.name, directory.metadata.brokerIds, first, totalCount - first, topic.replicationFactor)
    await directory.brokerLock.run(async () => {
      const added = assignments.map((replicas, i) => {
        const alive = replicas.filter((r) => directory.alive.has(r))
        return { partition: first + i, replicas, leader: alive[0] ?? -1, isr: alive.length > 0 ? alive : replicas, leaderEpoch: 0 }
      })
      topic.partitions.push(...added)
      const partitions = added.map((p) => new ReplicatedPartition(directory.partitionHost, topic, p))
      for (const partition of partitions) directory.registerPartition(partition)
      await directory.persistMetadata()
      // Side by side: a new log's open ends with an fsync of its directory, and 30,000 of them one after
      // another were most of creating a 10,000-partition RF 3 mirror's topics.
      await forEachConcurrently(partitions, LOG_OPEN_CONCURRENCY, async (partition) => {
        const logs: Array<[number, PartitionLogApi]> = []
        for (const brokerId of partition.metadata.replicas) {
          if (directory.alive.has(brokerId)) logs.push([brokerId, await directory.openReplicaLog(topic, partition.partition, brokerId)])
        }
        await partition.resume(logs)
      })
    })
  }

  /** Client CreatePartitions: grows a topic; refused on read-only (mirror) topics. */
  async createPartitions(topicName: string, totalCount: number): Promise<TopicDescription> {
    this.directory.ensureReachable()
    const topic = this.directory.requireTopic(topicName)
    this.checkClientWritable(topic)
    const count = validateCount(totalCount, 'partition count', MAX_PARTITIONS)
    if (count <= topic.partitions.length) {
      throw new ClusterError('VALIDATION_FAILED', `topic ${topicName} already has ${topic.partitions.length} partitions; the new count must be larger`)
    }
    await this.addPartitions(topic, count)
    return this.directory.describeTopic(topic)
  }

  /** Client DeleteTopics: refused on read-only (mirror) topics and internal topics. */
  async deleteTopic(topicName: string): Promise<void> {
    const { directory } = this
    directory.ensureReachable()
    const topic = directory.requireTopic(topicName)
    this.checkClientWritable(topic)
    const partitions = topic.partitions.map((p) => directory.findPartition(topic.name, p.partition)!)
    delete directory.metadata.topics[topic.name]
    await directory.persistMetadata()
    for (const p of partitions) {
      directory.unregisterPartition(topic.name, p.partition)
      await p.lock.run(() => p.closeForDeletion())
      for (const brokerId of p.metadata.replicas) await rm(directory.replicaDir(topic.name, p.partition, brokerId), { recursive: true, force: true })
    }
    await this.onTopicDeleted(topic.name)
  }

  /**
   * Sets dynamic topic configs (merged over the current ones). Allowed on mirror topics too: the mirror's
   * config sync uses it, and operators may set excluded configs themselves. Log settings (segment, retention,
   * cleanup policy) apply to the open replica logs at once, as Kafka's dynamic topic configs do.
   */
  async alterTopicConfigs(topicName: string, configs: Record<string, string>): Promise<void> {
    this.directory.ensureReachable()
    const topic = this.directory.requireTopic(topicName)
    const merged = { ...topic.configs, ...validateTopicConfigs(configs) }
    checkMinInsyncReplicas(topic, merged, false)
    this.setConfigs(topic, merged)
    await this.directory.persistMetadata()
  }

  /**
   * Client IncrementalAlterConfigs: sets and removes dynamic configs in one change, all validated first, so
   * a refused request changes nothing. Allowed on mirror topics (the next sync rewrites the configs it mirrors).
   */
  async updateTopicConfigs(topicName: string, change: { set?: Record<string, string>; delete?: string[] }): Promise<Record<string, string>> {
    this.directory.ensureReachable()
    const topic = this.directory.requireTopic(topicName)
    if (topic.internal) throw new ClusterError('VALIDATION_FAILED', `${topic.name} is an internal topic`)
    const set = validateTopicConfigs(change.set ?? {})
    const removed = change.delete ?? []
    if (!Array.isArray(removed) || removed.some((key) => typeof key !== 'string')) throw new ClusterError('VALIDATION_FAILED', 'config keys must be an array of strings')
    const unknown = removed.filter((key) => !isTopicConfigName(key))
    if (unknown.length > 0) throw new ClusterError('VALIDATION_FAILED', `unknown topic config ${JSON.stringify(unknown[0])}`, { details: { config: unknown[0] } })
    const both = removed.find((key) => Object.hasOwn(set, key))
    if (both !== undefined) throw new ClusterError('VALIDATION_FAILED', `config ${both} cannot be both set and deleted`, { details: { config: both } })
    const next = { ...topic.configs, ...set }
    for (const key of removed) delete next[key]
    checkMinInsyncReplicas(topic, next, true)
    this.setConfigs(topic, next)
    await this.directory.persistMetadata()
    return { ...next }
  }

  /** Removes dynamic configs (back to the cluster defaults). */
  async deleteTopicConfigs(topicName: string, keys: string[]): Promise<void> {
    this.directory.ensureReachable()
    const topic = this.directory.requireTopic(topicName)
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) throw new ClusterError('VALIDATION_FAILED', 'config keys must be an array of strings')
    const next = { ...topic.configs }
    for (const key of keys) delete next[key]
    this.setConfigs(topic, next)
    await this.directory.persistMetadata()
  }

  /** Checked against the logs first (a value they refuse changes nothing), then kept and applied to them. */
  private setConfigs(topic: TopicMetadata, configs: Record<string, string>): void {
    const changed = { ...topic, configs }
    try {
      resolvePartitionLogConfig(this.directory.logConfig(changed))
    } catch (error) {
      throw toClusterError(error)
    }
    topic.configs = configs
    this.directory.applyLogConfigs(topic)
  }

  /** Client DeleteRecords: refused on read-only (mirror) topics; at most up to the high watermark. */
  async deleteRecords(tp: TopicPartition, beforeOffset: number): Promise<{ logStartOffset: number }> {
    this.directory.ensureReachable()
    this.checkClientWritable(this.directory.requireTopic(tp.topic))
    const partition = this.directory.requirePartition(tp)
    const offset = validateOffset(beforeOffset, 'beforeOffset')
    return { logStartOffset: await partition.deleteRecordsBefore(offset) }
  }

  /**
   * A planned switchover's fence (KIP-1279 §9.2, "stop producers on the source", done by the broker): every
   * client write to these topics is refused with TOPIC_WRITE_FENCED, whatever the producer (plain,
   * idempotent, transactional: they all pass checkClientWritable), until unfenced. The coordinator's
   * transaction markers are not client writes: a transaction open at the fence can still commit or abort.
   * Kept in the metadata, so a restarted cluster is still fenced. Topics that do not exist are skipped.
   */
  async fenceWrites(topics: readonly string[], fence: { mirror: string; operation: string }): Promise<void> {
    const { directory } = this
    directory.ensureReachable()
    let changed = false
    for (const name of topics) {
      const topic = directory.topicNamed(name)
      if (!topic || topic.internal) continue
      if (topic.writeFence?.mirror === fence.mirror && topic.writeFence.operation === fence.operation) continue
      topic.writeFence = { mirror: fence.mirror, operation: fence.operation, since: directory.clock.now() }
      changed = true
    }
    if (changed) await directory.persistMetadata()
  }

  /** Lifts the fences `mirror` holds on these topics (a rollback, a failback, an audited unfence); others' fences stay. */
  async unfenceWrites(topics: readonly string[], mirror: string): Promise<void> {
    const { directory } = this
    directory.ensureReachable()
    let changed = false
    for (const name of topics) {
      const topic = directory.topicNamed(name)
      if (!topic?.writeFence || topic.writeFence.mirror !== mirror) continue
      topic.writeFence = null
      changed = true
    }
    if (changed) await directory.persistMetadata()
  }

  /** The fences in place, by topic. */
  writeFences(): Array<{ topic: string; mirror: string; operation: string; since: number }> {
    this.directory.ensureReachable()
    return Object.values(this.directory.metadata.topics).flatMap((topic) => (topic.writeFence ? [{ topic: topic.name, ...topic.writeFence }] : []))
  }

  checkClientWritable(topic: TopicMetadata): void {
    if (topic.internal) throw new ClusterError('VALIDATION_FAILED', `${topic.name} is an internal topic`)
    const fence = topic.writeFence
    if (fence) {
      throw new ClusterError('TOPIC_WRITE_FENCED', `topic ${topic.name} is fenced by the planned switchover of mirror ${fence.mirror}: write to its destination instead`, {
        details: { topic: topic.name, mirror: fence.mirror, operation: fence.operation },
      })
    }
    if (topic.readOnly) {
      throw new ClusterError('TOPIC_READ_ONLY', `topic ${topic.name} is the destination of mirror ${topic.mirror?.name ?? '(unknown)'} and is read-only until it is stopped`, {
        details: { topic: topic.name, mirror: topic.mirror?.name ?? null },
      })
    }
  }
}

function checkMinInsyncReplicas(topic: TopicMetadata, configs: Record<string, string>, withDetails: boolean): void {
  const value = configs['min.insync.replicas']
  if (value === undefined || Number(value) <= topic.replicationFactor) return
  throw new ClusterError(
    'VALIDATION_FAILED',
    `min.insync.replicas ${value} exceeds the replication factor ${topic.replicationFactor} of ${topic.name}`,
    withDetails ? { details: { config: 'min.insync.replicas' } } : undefined,
  )
}
