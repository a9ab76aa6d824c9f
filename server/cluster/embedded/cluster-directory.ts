import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { compactionConfigOfTopic } from '@/server/storage/cleaner/cleaner-config'
import type { PartitionLogApi, PartitionLogConfig } from '@/server/storage/types'
import { ClusterError, toClusterError } from '../errors'
import type { PartitionDescription, TopicDescription, TopicPartition } from '../ports'
import type { Clock } from './clock'
import { integerConfig, type EmbeddedClusterConfig } from './config'
import { DurableJsonFile } from './durable-json'
import { HighWatermarkCheckpoints } from './high-watermarks'
import { partitionDirName, validateOffset, type ClusterMetadata, type TopicMetadata } from './metadata'
import { Mutex } from './mutex'
import { ReplicatedPartition, type PartitionHost } from './replicated-partition'

/** Opens a replica's log in `dir`, making the directory first where it may be missing. */
export type LogOpener = (dir: string, config: PartitionLogConfig) => Promise<PartitionLogApi>

export function isInteger(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min
}

/**
 * The cluster's directory: the persisted metadata, which brokers are alive, and the replicated partitions
 * by topic and index. Every other part of the embedded cluster looks topics and partitions up here, and
 * asks here whether the cluster can be reached at all.
 *
 * Layout under `dir`:
 *   metadata.json            cluster id, brokers, topics, partitions (replicas, leader, ISR, leader epoch)
 *   broker-<id>/<topic>-<p>/ one replica log per broker and partition, in Kafka's segment format
 */
export class ClusterDirectory {
  readonly alive = new Set<number>()
  /** Serialises broker stops and starts with the opening of new partitions' logs. */
  readonly brokerLock = new Mutex()
  readonly partitionHost: PartitionHost
  closed = false

  private readonly partitions = new TopicPartitionMap<ReplicatedPartition>()
  private readonly metadataFile: DurableJsonFile
  /** Each broker's replication-offset-checkpoint: the high watermarks its replica logs open with. */
  readonly highWatermarks: HighWatermarkCheckpoints
  /** Fetches held until one of their partitions has something to answer (maxWaitMs). */
  readonly fetchWaiters = new Set<{ partitions: Set<ReplicatedPartition>; wake: () => void }>()
  /** The open incremental fetch sessions (fetch-session.ts), told of every partition that became fetchable. */
  readonly fetchSessions = new Set<{ lastUsedAt: number; partitionChanged(partition: ReplicatedPartition): void; close(): void }>()

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly clock: Clock,
    readonly config: EmbeddedClusterConfig,
    readonly metadata: ClusterMetadata,
    private readonly openLog: LogOpener,
  ) {
    this.metadataFile = new DurableJsonFile(path.join(dir, 'metadata.json'), () => this.metadata)
    this.highWatermarks = new HighWatermarkCheckpoints(dir, clock.now())
    this.partitionHost = {
      clock,
      config,
      persistMetadata: () => this.persistMetadata(),
      openReplicaLog: (topic, partition, brokerId) => this.openReplicaLog(this.requireTopic(topic), partition, brokerId),
      fetchableChanged: (partition) => {
        for (const waiter of this.fetchWaiters) if (waiter.partitions.has(partition)) waiter.wake()
        for (const session of this.fetchSessions) session.partitionChanged(partition)
      },
    }
  }

  persistMetadata(): Promise<void> {
    return this.metadataFile.save()
  }

  /** Resolves once every metadata change persisted so far is durable, writing nothing new. */
  metadataSaved(): Promise<void> {
    return this.metadataFile.saved()
  }

  // REACHABILITY

  ensureOpen(): void {
    if (this.closed) throw new ClusterError('SOURCE_UNAVAILABLE', `cluster ${this.name} is closed`)
  }

  /** A client needs at least one broker to reach the cluster at all. */
  ensureReachable(): void {
    this.ensureOpen()
    if (this.alive.size === 0) throw new ClusterError('SOURCE_UNAVAILABLE', `every broker of cluster ${this.name} is stopped`)
  }

  isReachable(): boolean {
    return !this.closed && this.alive.size > 0
  }

  // LOOKUPS

  /** Own properties only: a topic named "constructor" must not find Object.prototype's. */
  topicNamed(name: unknown): TopicMetadata | undefined {
    return typeof name === 'string' && Object.hasOwn(this.metadata.topics, name) ? this.metadata.topics[name] : undefined
  }

  requireTopic(name: string): TopicMetadata {
    const topic = this.topicNamed(name)
    if (!topic) throw new ClusterError('NOT_FOUND', `topic ${JSON.stringify(name)} does not exist in ${this.name}`, { details: { topic: name } })
    return topic
  }

  /** The partition, or undefined when its topic or index does not exist (no validation of the request). */
  findPartition(topic: string, partition: number): ReplicatedPartition | undefined {
    return this.topicNamed(topic) ? this.partitions.get({ topic, partition }) : undefined
  }

  requirePartition(tp: TopicPartition): ReplicatedPartition {
    const topic = this.requireTopic(tp.topic)
    const partition = isInteger(tp.partition, 0) ? this.partitions.get({ topic: topic.name, partition: tp.partition }) : undefined
    if (!partition) {
      throw new ClusterError('NOT_FOUND', `partition ${JSON.stringify(tp.partition)} of ${tp.topic} does not exist`, { details: { topic: tp.topic, partition: tp.partition } })
    }
    return partition
  }

  allPartitions(): ReplicatedPartition[] {
    return [...this.partitions.values()]
  }

  registerPartition(partition: ReplicatedPartition): void {
    this.partitions.set(partition, partition)
  }

  unregisterPartition(topic: string, partition: number): void {
    this.partitions.delete({ topic, partition })
  }

  /** A committed offset must lie within the partition's log (OffsetCommit, the mirror's group offset sync). */
  validateCommittedOffset(tp: TopicPartition, offset: unknown): number {
    const partition = this.requirePartition(tp)
    const value = validateOffset(offset, 'offset')
    const end = partition.offsets().logEndOffset
    if (value > end) {
      throw new ClusterError('OFFSET_OUT_OF_RANGE', `offset ${value} is beyond the log end offset ${end} of ${tp.topic}-${tp.partition}`, { details: { logEndOffset: end } })
    }
    return value
  }

  // DESCRIPTIONS

  describePartition(partition: ReplicatedPartition): PartitionDescription {
    const m = partition.metadata
    return { partition: m.partition, leader: m.leader, replicas: [...m.replicas], isr: [...m.isr], leaderEpoch: m.leaderEpoch, ...partition.offsets() }
  }

  describeTopic(topic: TopicMetadata): TopicDescription {
    return {
      name: topic.name,
      topicId: topic.topicId,
      replicationFactor: topic.replicationFactor,
      configs: { ...topic.configs },
      partitions: topic.partitions.map((p) => this.describePartition(this.partitions.get({ topic: topic.name, partition: p.partition })!)),
      readOnly: topic.readOnly,
      mirror: topic.mirror ? { name: topic.mirror.name } : null,
    }
  }

  // REPLICA LOGS

  replicaDir(topic: string, partition: number, brokerId: number): string {
    return path.join(this.dir, `broker-${brokerId}`, partitionDirName(topic, partition))
  }

  logConfig(topic: TopicMetadata): PartitionLogConfig {
    const c = topic.configs
    const config: PartitionLogConfig = {
      segmentBytes: integerConfig(c, 'segment.bytes', this.config.segmentBytes),
      now: () => this.clock.now(),
      // The brokers checkpoint their replicas' high watermarks (high-watermarks.ts), not each log.
      highWatermarkCheckpointIntervalMs: null,
      ...compactionConfigOfTopic(c),
    }
    if (c['segment.ms'] !== undefined) config.segmentMs = integerConfig(c, 'segment.ms', 0)
    if (c['retention.ms'] !== undefined) config.retentionMs = integerConfig(c, 'retention.ms', -1)
    if (c['retention.bytes'] !== undefined) config.retentionBytes = integerConfig(c, 'retention.bytes', -1)
    if (c['max.message.bytes'] !== undefined) config.maxMessageBytes = integerConfig(c, 'max.message.bytes', 1_048_588)
    if (c['index.interval.bytes'] !== undefined) config.indexIntervalBytes = integerConfig(c, 'index.interval.bytes', 4096)
    return config
  }

  /** The topic's configs changed: every open replica log of it takes the new log settings now. */
  applyLogConfigs(topic: TopicMetadata): void {
    const config = this.logConfig(topic)
    for (const partition of this.allPartitions()) {
      if (partition.topic !== topic.name) continue
      for (const brokerId of partition.metadata.replicas) partition.replicaLog(brokerId)?.updateConfig(config)
    }
  }

  async openReplicaLog(topic: TopicMetadata, partition: number, brokerId: number): Promise<PartitionLogApi> {
    const dir = this.replicaDir(topic.name, partition, brokerId)
    try {
      return await this.openLog(dir, { ...this.logConfig(topic), checkpointedHighWatermark: this.highWatermarks.checkpointed(brokerId, topic.name, partition) })
    } catch (error) {
      throw toClusterError(error)
    }
  }

  /** Replica directories the metadata no longer knows (a topic deleted just before a crash) are removed. */
  async removeStrayReplicaDirs(): Promise<void> {
    const expected = new Set<string>()
    for (const topic of Object.values(this.metadata.topics)) {
      for (const p of topic.partitions) for (const b of p.replicas) expected.add(path.join(`broker-${b}`, partitionDirName(topic.name, p.partition)))
    }
    for (const brokerId of this.metadata.brokerIds) {
      const brokerDir = path.join(this.dir, `broker-${brokerId}`)
      let entries: string[]
      try {
        entries = await readdir(brokerDir)
      } catch {
        continue
      }
      for (const entry of entries) {
        if (/^.+-\d+$/.test(entry) && !expected.has(path.join(`broker-${brokerId}`, entry))) {
          await rm(path.join(brokerDir, entry), { recursive: true, force: true })
        }
      }
    }
  }
}
