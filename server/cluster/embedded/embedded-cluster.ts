import 'server-only'
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { MIRROR_STATE_TOPIC } from '@/lib/mirror/constants'
import { readControlInfo } from '@/lib/log/record-batch'
import { decodeRecords } from '@/lib/log/records-view'
import type { EpochEndOffset } from '@/lib/log/types'
import { PartitionLog } from '@/server/storage/partition-log'
import { TimeSlice, yieldToEventLoop } from '@/server/util/cooperative'
import { compactionConfigOfTopic } from '@/server/storage/cleaner/cleaner-config'
import type { IsolationLevel, PartitionLogApi, PartitionLogConfig } from '@/server/storage/types'
import { ClusterError, isClusterError, toClusterError } from '../errors'
import type {
  FetchOptions,
  FetchPartitionRequest,
  FetchPartitionResult,
  GroupOffsets,
  HostedMirror,
  LastMirrorPosition,
  MirrorHost,
  OpenTransaction,
  PartitionDescription,
  SourceCluster,
  TopicDescription,
  TopicPartition,
} from '../ports'
import { systemClock, type Clock } from './clock'
import { integerConfig, isTopicConfigName, resolveClusterConfig, validateTopicConfigs, type EmbeddedClusterConfig } from './config'
import { DurableJsonFile, readJsonIfExists } from './durable-json'
import { divergingEpoch } from './epochs'
import { GroupCoordinator, type GroupDescription } from './group-coordinator'
import {
  assignReplicas,
  ClusterMetadataSchema,
  collidingTopicName,
  NAME_PATTERN,
  partitionKey,
  validateCount,
  validateOffset,
  validateTopicId,
  validateTopicName,
  type ClusterMetadata,
  type TopicMetadata,
} from './metadata'
import { partitionForKey } from './partitioner'
import { Mutex } from './mutex'
import { ProducerIdManager } from './producer-ids'
import {
  SequenceBook,
  TransactionalProducer,
  validateRecords,
  validateTransactionalId,
  type ProducePlan,
  type ProduceRecord,
  type ProduceResult,
  type ProducerSession,
} from './producers'
import { recordsOfRead, toRecordView, type RecordsPage, type RecordView } from './records-view'
import { ReplicatedPartition, type PartitionHost } from './replicated-partition'
import { TransactionCoordinator } from './transaction-coordinator'

/**
 * The embedded cluster: an in-process model of a Kafka cluster (DESIGN.md §3) that implements both ports the
 * mirroring engine uses, plus the client API the app, the demo and the tests use (produce, transactional
 * producers, records view, consumer groups, fault injection).
 *
 * Layout under `dir`:
 *   metadata.json            cluster id, brokers, topics, partitions (replicas, leader, ISR, leader epoch)
 *   producer-ids.json        the next producer-id block
 *   transactions.json        the transaction coordinator's state
 *   groups.json              consumer groups: committed offsets and members
 *   broker-<id>/<topic>-<p>/ one replica log per broker and partition, in Kafka's segment format
 *
 * Every broker is started when the cluster opens (a process restart restarts the whole cluster).
 */

export type LogOpener = (dir: string, config: PartitionLogConfig) => Promise<PartitionLogApi>

export interface EmbeddedClusterOptions {
  /** The cluster's name in the app (not persisted: the app decides what to call it). */
  name: string
  /** Broker count of a new cluster (default 3); an existing cluster keeps its brokers. */
  brokers?: number
  clock?: Clock
  config?: Partial<EmbeddedClusterConfig>
  /** @internal visible for testing: how replica logs are opened. */
  openLog?: LogOpener
}

/**
 * What the mirroring engine knows about the mirrors this cluster hosts; the cluster stores `__mirror_state`
 * but cannot interpret it, so the engine registers itself here (`setMirrorDirectory`).
 */
export interface MirrorDirectory {
  listHostedMirrors(filter?: { topics?: string[] }): Promise<HostedMirror[]>
  lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Promise<Map<string, LastMirrorPosition>>
}

export interface BrokerDescription {
  id: number
  alive: boolean
}

export interface CreateTopicSpec {
  name: string
  partitions: number
  replicationFactor?: number
  configs?: Record<string, string>
  /** The id to give the topic (a mirror topic pre-created with its source's id); a new one by default. */
  topicId?: string
}

export type Acks = 'all' | 'leader'

export interface ProduceOptions {
  partition?: number
  /** Default true: records carry the cluster client's producer id and sequence numbers. */
  idempotent?: boolean
  records: ProduceRecord[]
  /** Default 'all': resolve once the high watermark covers the records. */
  acks?: Acks
}

/** A Produce request as a client library would send it: one batch with the producer fields given as they are. */
export interface ProduceBatchOptions {
  records: ProduceRecord[]
  producerId?: number
  producerEpoch?: number
  baseSequence?: number
  transactional?: boolean
  acks?: Acks
}

export interface ReadRecordsOptions {
  fromOffset?: number
  limit?: number
  isolation?: IsolationLevel
}

export type OffsetSpec = 'earliest' | 'latest' | { timestamp: number }

const INTERNAL_TOPIC_REPLICATION_FACTOR = 3
const MAX_PARTITIONS = 10_000
/** Partitions per step of a cluster tick between turns of the event loop. */
const TICK_CHUNK = 256
const MAX_READ_LIMIT = 10_000
const READ_CHUNK_BYTES = 1 << 20

function tpKey(tp: TopicPartition): string {
  return partitionKey(tp.topic, tp.partition)
}

function isInteger(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min
}

export class EmbeddedCluster implements SourceCluster, MirrorHost {
  readonly name: string
  readonly dir: string
  readonly clock: Clock
  readonly config: EmbeddedClusterConfig

  private readonly metadata: ClusterMetadata
  private readonly metadataFile: DurableJsonFile
  private readonly openLog: LogOpener
  private readonly alive = new Set<number>()
  private readonly partitions = new Map<string, ReplicatedPartition>()
  private readonly roundRobin = new Map<string, number>()
  private readonly transactionalProducers = new Map<string, TransactionalProducer>()
  private producerIds!: ProducerIdManager
  private coordinator!: TransactionCoordinator
  private groups!: GroupCoordinator
  private idempotentSession: Promise<ProducerSession> | null = null
  private mirrorDirectory: MirrorDirectory | null = null
  private closed = false
  private tickInFlight: Promise<void> | null = null
  /** Fetches held until one of their partitions has something to answer (maxWaitMs). */
  private readonly fetchWaiters = new Set<{ partitions: Set<ReplicatedPartition>; wake: () => void }>()
  private tickTimer: NodeJS.Timeout | null = null
  private readonly partitionHost: PartitionHost
  /** Serialises broker stops and starts with the opening of new partitions' logs. */
  private readonly brokerLock = new Mutex()

  private constructor(dir: string, metadata: ClusterMetadata, options: EmbeddedClusterOptions, config: EmbeddedClusterConfig) {
    this.name = options.name
    this.dir = dir
    this.clock = options.clock ?? systemClock
    this.config = config
    this.metadata = metadata
    this.openLog = options.openLog ?? ((logDir, logConfig) => PartitionLog.open(logDir, logConfig))
    this.metadataFile = new DurableJsonFile(path.join(dir, 'metadata.json'), () => this.metadata)
    this.partitionHost = {
      clock: this.clock,
      config: this.config,
      persistMetadata: () => this.metadataFile.save(),
      openReplicaLog: (topic, partition, brokerId) => this.openReplicaLog(this.requireTopic(topic), partition, brokerId),
      fetchableChanged: (partition) => {
        for (const waiter of this.fetchWaiters) if (waiter.partitions.has(partition)) waiter.wake()
      },
    }
  }

  // LIFECYCLE

  static async open(dir: string, options: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
    if (typeof options.name !== 'string' || !NAME_PATTERN.test(options.name)) {
      throw new ClusterError('VALIDATION_FAILED', `invalid cluster name ${JSON.stringify(options.name)}`)
    }
    const brokerCount = options.brokers ?? 3
    if (!isInteger(brokerCount, 1) || brokerCount > 100) throw new ClusterError('VALIDATION_FAILED', `broker count must be 1..100, got ${brokerCount}`)
    const config = resolveClusterConfig(options.config)
    const root = path.resolve(dir)
    await mkdir(root, { recursive: true })
    const raw = await readJsonIfExists(path.join(root, 'metadata.json'))
    const isNew = raw === undefined
    const metadata: ClusterMetadata = isNew
      ? {
          version: 1,
          // Kafka's cluster ids are 16 random bytes in URL-safe base64 (StorageTool random-uuid).
          clusterId: randomBytes(16).toString('base64url'),
          brokerIds: Array.from({ length: brokerCount }, (_, i) => i + 1),
          topics: {},
        }
      : ClusterMetadataSchema.parse(raw)
    const cluster = new EmbeddedCluster(root, metadata, options, config)
    if (isNew) await cluster.metadataFile.save()
    await cluster.start()
    return cluster
  }

  private async start(): Promise<void> {
    for (const id of this.metadata.brokerIds) this.alive.add(id)
    this.producerIds = await ProducerIdManager.open(path.join(this.dir, 'producer-ids.json'), {
      firstProducerId: this.config.firstProducerId,
      blockSize: this.config.producerIdBlockSize,
    })
    const opened: Array<[ReplicatedPartition, Array<[number, PartitionLogApi]>]> = []
    for (const topic of Object.values(this.metadata.topics)) {
      for (const p of topic.partitions) {
        const partition = new ReplicatedPartition(this.partitionHost, topic, p)
        this.partitions.set(partitionKey(topic.name, p.partition), partition)
        const logs: Array<[number, PartitionLogApi]> = []
        for (const brokerId of p.replicas) logs.push([brokerId, await this.openReplicaLog(topic, p.partition, brokerId)])
        opened.push([partition, logs])
      }
    }
    await this.removeStrayReplicaDirs()
    for (const [partition, logs] of opened) await partition.resume(logs)
    this.coordinator = await TransactionCoordinator.open(
      path.join(this.dir, 'transactions.json'),
      {
        clock: this.clock,
        allocateProducerId: () => this.producerIds.allocate(),
        writeTxnMarker: (tp, type, producerId, producerEpoch) => this.writeTxnMarker(tp, type, producerId, producerEpoch),
      },
      { transactionTimeoutMs: this.config.transactionTimeoutMs },
    )
    this.groups = await GroupCoordinator.open(path.join(this.dir, 'groups.json'), this.clock, { sessionTimeoutMs: this.config.groupSessionTimeoutMs })
    if (this.config.tickIntervalMs !== null) {
      this.tickTimer = setInterval(() => {
        this.tick().catch(() => {
          // The next tick retries; a tick fails only when a log's storage fails, which the logs report themselves.
        })
      }, this.config.tickIntervalMs)
      this.tickTimer.unref()
    }
  }

  /** Stops the brokers cleanly: logs are flushed and closed; the directory can be opened again. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const waiter of this.fetchWaiters) waiter.wake()
    if (this.tickTimer) clearInterval(this.tickTimer)
    await this.tickInFlight?.catch(() => undefined)
    for (const producer of [...this.transactionalProducers.values()]) producer.close()
    await Promise.all([...this.partitions.values()].map((p) => p.lock.run(() => p.closeAll())))
    await this.metadataFile.save()
  }

  get isClosed(): boolean {
    return this.closed
  }

  private ensureOpen(): void {
    if (this.closed) throw new ClusterError('SOURCE_UNAVAILABLE', `cluster ${this.name} is closed`)
  }

  /** A client needs at least one broker to reach the cluster at all. */
  private ensureReachable(): void {
    this.ensureOpen()
    if (this.alive.size === 0) throw new ClusterError('SOURCE_UNAVAILABLE', `every broker of cluster ${this.name} is stopped`)
  }

  private replicaDir(topic: string, partition: number, brokerId: number): string {
    return path.join(this.dir, `broker-${brokerId}`, partitionKey(topic, partition))
  }

  private logConfig(topic: TopicMetadata): PartitionLogConfig {
    const c = topic.configs
    const config: PartitionLogConfig = {
      segmentBytes: integerConfig(c, 'segment.bytes', this.config.segmentBytes),
      now: () => this.clock.now(),
      ...compactionConfigOfTopic(c),
    }
    if (c['segment.ms'] !== undefined) config.segmentMs = integerConfig(c, 'segment.ms', 0)
    if (c['retention.ms'] !== undefined) config.retentionMs = integerConfig(c, 'retention.ms', -1)
    if (c['retention.bytes'] !== undefined) config.retentionBytes = integerConfig(c, 'retention.bytes', -1)
    if (c['max.message.bytes'] !== undefined) config.maxMessageBytes = integerConfig(c, 'max.message.bytes', 1_048_588)
    if (c['index.interval.bytes'] !== undefined) config.indexIntervalBytes = integerConfig(c, 'index.interval.bytes', 4096)
    return config
  }

  private async openReplicaLog(topic: TopicMetadata, partition: number, brokerId: number): Promise<PartitionLogApi> {
    const dir = this.replicaDir(topic.name, partition, brokerId)
    await mkdir(dir, { recursive: true })
    try {
      return await this.openLog(dir, this.logConfig(topic))
    } catch (error) {
      throw toClusterError(error)
    }
  }

  /** Replica directories the metadata no longer knows (a topic deleted just before a crash) are removed. */
  private async removeStrayReplicaDirs(): Promise<void> {
    const expected = new Set<string>()
    for (const topic of Object.values(this.metadata.topics)) {
      for (const p of topic.partitions) for (const b of p.replicas) expected.add(path.join(`broker-${b}`, partitionKey(topic.name, p.partition)))
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

  /**
   * One deterministic step of everything time-driven: follower catch-up, ISR shrink after
   * `replica.lag.time.max.ms`, elections for offline partitions, acks=all timeouts, transaction timeouts and
   * pending markers, group session expiry. Concurrent calls share the step in progress.
   */
  tick(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.tickInFlight ??= this.runTick().finally(() => {
      this.tickInFlight = null
    })
    return this.tickInFlight
  }

  private async runTick(): Promise<void> {
    // Partitions tick a chunk at a time with the event loop given back in between: with thousands of
    // partitions, one Promise.all over all of them holds requests for the whole sweep.
    const partitions = [...this.partitions.values()].filter((partition) => !partition.idleForTick())
    for (let start = 0; start < partitions.length; start += TICK_CHUNK) {
      await Promise.all(partitions.slice(start, start + TICK_CHUNK).map((p) => p.tick()))
      if (start + TICK_CHUNK < partitions.length) await yieldToEventLoop()
    }
    await this.coordinator.onTick()
    await this.groups.expireMembers()
  }

  // BROKERS

  brokers(): BrokerDescription[] {
    return this.metadata.brokerIds.map((id) => ({ id, alive: this.alive.has(id) }))
  }

  private requireBroker(brokerId: unknown): number {
    if (typeof brokerId !== 'number' || !this.metadata.brokerIds.includes(brokerId)) {
      throw new ClusterError('NOT_FOUND', `cluster ${this.name} has no broker ${JSON.stringify(brokerId)}`)
    }
    return brokerId
  }

  /**
   * Stops a broker as a crash would look to its peers: its replica logs close, partitions it led elect a new
   * leader from the ISR at once (or go offline), and it stays in the ISR of the others until the lag time
   * passes.
   */
  async stopBroker(brokerId: number): Promise<void> {
    this.ensureOpen()
    this.requireBroker(brokerId)
    await this.brokerLock.run(async () => {
      if (!this.alive.has(brokerId)) throw new ClusterError('CONFLICT', `broker ${brokerId} of ${this.name} is already stopped`)
      this.alive.delete(brokerId)
      await Promise.all([...this.partitions.values()].filter((p) => p.metadata.replicas.includes(brokerId)).map((p) => p.onBrokerStopped(brokerId)))
    })
  }

  /**
   * Starts a stopped broker: its logs are recovered, offline partitions it can lead get it as leader, and as a
   * follower it truncates any divergent tail (KIP-101) and catches up, rejoining the ISR once caught up. A log
   * that cannot be opened leaves that one replica down (Kafka's offline log directory); the error is reported.
   */
  async startBroker(brokerId: number): Promise<void> {
    this.ensureOpen()
    this.requireBroker(brokerId)
    await this.brokerLock.run(async () => {
      if (this.alive.has(brokerId)) throw new ClusterError('CONFLICT', `broker ${brokerId} of ${this.name} is already running`)
      this.alive.add(brokerId)
      const hosted = [...this.partitions.values()].filter((p) => p.metadata.replicas.includes(brokerId))
      const outcomes = await Promise.allSettled(hosted.map((p) => p.onBrokerStarted(brokerId, () => this.openReplicaLog(p.topicMetadata, p.partition, brokerId))))
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
      if (failed) throw failed.reason
    })
  }

  /** Fault injection and preferred-leader election; see ReplicatedPartition.electLeader. */
  async electLeader(topicPartition: TopicPartition, brokerId: number, options: { unclean?: boolean } = {}): Promise<PartitionDescription> {
    this.ensureOpen()
    const partition = this.requirePartition(topicPartition)
    this.requireBroker(brokerId)
    await partition.electLeader(brokerId, options)
    return this.describeReplicatedPartition(partition)
  }

  /**
   * Fault injection: an unclean election that loses the last `lostRecords` offsets of a partition. The first
   * alive follower is taken as having fallen behind by that much and is elected uncleanly (see
   * ReplicatedPartition.electLaggingReplicaUncleanly); the cut is rounded down to a batch boundary.
   */
  async electLaggingReplicaUncleanly(
    topicPartition: TopicPartition,
    lostRecords: number,
  ): Promise<{ leader: number; previousLeader: number; logEndOffset: number; previousLogEndOffset: number }> {
    this.ensureReachable()
    const partition = this.requirePartition(topicPartition)
    if (!isInteger(lostRecords, 1)) throw new ClusterError('VALIDATION_FAILED', `lostRecords must be a positive integer, got ${String(lostRecords)}`)
    const previousLeader = partition.metadata.leader
    const follower = partition.metadata.replicas.find((r) => r !== previousLeader && this.alive.has(r))
    if (follower === undefined) {
      throw new ClusterError('CONFLICT', `${tpKey(topicPartition)} of ${this.name} has no alive follower to elect`, { details: { ...topicPartition } })
    }
    const { logEndOffset: previousLogEndOffset, logStartOffset } = partition.offsets()
    if (previousLogEndOffset - logStartOffset < lostRecords) {
      throw new ClusterError('CONFLICT', `${tpKey(topicPartition)} of ${this.name} holds fewer than ${lostRecords} records to lose`, { details: { ...topicPartition } })
    }
    const logEndOffset = await partition.electLaggingReplicaUncleanly(follower, previousLogEndOffset - lostRecords)
    return { leader: follower, previousLeader, logEndOffset, previousLogEndOffset }
  }

  // TOPICS

  /** Own properties only: a topic named "constructor" must not find Object.prototype's. */
  private topicNamed(name: unknown): TopicMetadata | undefined {
    return typeof name === 'string' && Object.hasOwn(this.metadata.topics, name) ? this.metadata.topics[name] : undefined
  }

  private requireTopic(name: string): TopicMetadata {
    const topic = this.topicNamed(name)
    if (!topic) throw new ClusterError('NOT_FOUND', `topic ${JSON.stringify(name)} does not exist in ${this.name}`, { details: { topic: name } })
    return topic
  }

  private requirePartition(tp: TopicPartition): ReplicatedPartition {
    const topic = this.requireTopic(tp.topic)
    const partition = isInteger(tp.partition, 0) ? this.partitions.get(partitionKey(topic.name, tp.partition)) : undefined
    if (!partition) {
      throw new ClusterError('NOT_FOUND', `partition ${JSON.stringify(tp.partition)} of ${tp.topic} does not exist`, { details: { topic: tp.topic, partition: tp.partition } })
    }
    return partition
  }

  private describeReplicatedPartition(partition: ReplicatedPartition): PartitionDescription {
    const m = partition.metadata
    return { partition: m.partition, leader: m.leader, replicas: [...m.replicas], isr: [...m.isr], leaderEpoch: m.leaderEpoch, ...partition.offsets() }
  }

  private describe(topic: TopicMetadata): TopicDescription {
    return {
      name: topic.name,
      topicId: topic.topicId,
      replicationFactor: topic.replicationFactor,
      configs: { ...topic.configs },
      partitions: topic.partitions.map((p) => this.describeReplicatedPartition(this.partitions.get(partitionKey(topic.name, p.partition))!)),
      readOnly: topic.readOnly,
      mirror: topic.mirror ? { name: topic.mirror.name } : null,
    }
  }

  async clusterId(): Promise<string> {
    this.ensureReachable()
    return this.metadata.clusterId
  }

  async describeTopics(topics?: string[]): Promise<TopicDescription[]> {
    this.ensureReachable()
    if (topics !== undefined && (!Array.isArray(topics) || topics.some((name) => typeof name !== 'string'))) {
      throw new ClusterError('VALIDATION_FAILED', 'topics must be an array of names')
    }
    if (topics === undefined) {
      return Object.values(this.metadata.topics)
        .filter((t) => !t.internal)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((t) => this.describe(t))
    }
    return topics.flatMap((name) => {
      const topic = this.topicNamed(name)
      return topic ? [this.describe(topic)] : []
    })
  }

  async describeTopic(name: string): Promise<TopicDescription> {
    this.ensureReachable()
    return this.describe(this.requireTopic(name))
  }

  private validateNewTopic(name: string, partitions: unknown, replicationFactor: unknown): { partitions: number; replicationFactor: number } {
    if (this.topicNamed(name)) throw new ClusterError('CONFLICT', `topic ${name} already exists in ${this.name}`, { details: { topic: name } })
    const collision = collidingTopicName(name, Object.keys(this.metadata.topics))
    if (collision) throw new ClusterError('CONFLICT', `topic ${name} collides with existing topic ${collision} ('.' and '_' are interchangeable in Kafka metric names)`)
    const count = validateCount(partitions, 'partitions', MAX_PARTITIONS)
    const brokers = this.metadata.brokerIds.length
    const rf = replicationFactor === undefined ? Math.min(this.config.defaultReplicationFactor, brokers) : validateCount(replicationFactor, 'replicationFactor', brokers)
    return { partitions: count, replicationFactor: rf }
  }

  async createTopic(spec: CreateTopicSpec): Promise<TopicDescription> {
    this.ensureReachable()
    const name = validateTopicName(spec?.name)
    const { partitions, replicationFactor } = this.validateNewTopic(name, spec.partitions, spec.replicationFactor)
    const configs = validateTopicConfigs(spec.configs)
    const topicId = spec.topicId === undefined ? this.newTopicId() : this.unusedTopicId(validateTopicId(spec.topicId))
    const topic: TopicMetadata = {
      name,
      topicId,
      internal: false,
      replicationFactor,
      configs,
      readOnly: false,
      mirror: null,
      partitions: [],
    }
    await this.addTopic(topic, partitions)
    return this.describe(topic)
  }

  /** Kafka refuses a topic id another topic has (KIP-1279.md §6.1, JR59.3: TOPIC_ALREADY_EXISTS). */
  private unusedTopicId(topicId: string): string {
    const sameId = Object.values(this.metadata.topics).find((t) => t.topicId === topicId)
    if (sameId) throw new ClusterError('CONFLICT', `topic id ${topicId} is already used by topic ${sameId.name} in ${this.name}`, { details: { topicId, topic: sameId.name } })
    return topicId
  }

  private newTopicId(): string {
    for (;;) {
      const id = randomBytes(16).toString('base64url')
      if (!Object.values(this.metadata.topics).some((t) => t.topicId === id)) return id
    }
  }

  private async addTopic(topic: TopicMetadata, partitionCount: number): Promise<void> {
    this.metadata.topics[topic.name] = topic
    await this.addPartitions(topic, partitionCount)
  }

  /**
   * New partitions: placed round-robin, led by their first alive replica, durable in the metadata before any
   * log exists. They are registered at once (describable, LEADER_NOT_AVAILABLE until their logs are open);
   * the broker lock keeps brokers from stopping or starting while their logs are being opened.
   */
  private async addPartitions(topic: TopicMetadata, totalCount: number): Promise<void> {
    const first = topic.partitions.length
    const assignments = assignReplicas(topic.name, this.metadata.brokerIds, first, totalCount - first, topic.replicationFactor)
    await this.brokerLock.run(async () => {
      const added = assignments.map((replicas, i) => {
        const alive = replicas.filter((r) => this.alive.has(r))
        return { partition: first + i, replicas, leader: alive[0] ?? -1, isr: alive.length > 0 ? alive : replicas, leaderEpoch: 0 }
      })
      topic.partitions.push(...added)
      const partitions = added.map((p) => new ReplicatedPartition(this.partitionHost, topic, p))
      for (const partition of partitions) this.partitions.set(partitionKey(topic.name, partition.partition), partition)
      await this.metadataFile.save()
      for (const partition of partitions) {
        const logs: Array<[number, PartitionLogApi]> = []
        for (const brokerId of partition.metadata.replicas) {
          if (this.alive.has(brokerId)) logs.push([brokerId, await this.openReplicaLog(topic, partition.partition, brokerId)])
        }
        await partition.resume(logs)
      }
    })
  }

  /** Client CreatePartitions: grows a topic; refused on read-only (mirror) topics. */
  async createPartitions(topicName: string, totalCount: number): Promise<TopicDescription> {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
    this.checkClientWritable(topic)
    const count = validateCount(totalCount, 'partition count', MAX_PARTITIONS)
    if (count <= topic.partitions.length) {
      throw new ClusterError('VALIDATION_FAILED', `topic ${topicName} already has ${topic.partitions.length} partitions; the new count must be larger`)
    }
    await this.addPartitions(topic, count)
    return this.describe(topic)
  }

  /** Client DeleteTopics: refused on read-only (mirror) topics and internal topics. */
  async deleteTopic(topicName: string): Promise<void> {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
    this.checkClientWritable(topic)
    const partitions = topic.partitions.map((p) => this.partitions.get(partitionKey(topic.name, p.partition))!)
    delete this.metadata.topics[topic.name]
    await this.metadataFile.save()
    for (const p of partitions) {
      this.partitions.delete(partitionKey(topic.name, p.partition))
      await p.lock.run(() => p.closeAll())
      for (const brokerId of p.metadata.replicas) await rm(this.replicaDir(topic.name, p.partition, brokerId), { recursive: true, force: true })
    }
    this.roundRobin.delete(topic.name)
    await this.groups.forgetTopic(topic.name)
    await this.coordinator.forgetTopic(topic.name)
  }

  /**
   * Sets dynamic topic configs (merged over the current ones). Allowed on mirror topics too: the mirror's
   * config sync uses it, and operators may set excluded configs themselves. Log settings (segment, retention)
   * apply to replica logs opened after the change.
   */
  async alterTopicConfigs(topicName: string, configs: Record<string, string>): Promise<void> {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
    const valid = validateTopicConfigs(configs)
    const merged = { ...topic.configs, ...valid }
    if (merged['min.insync.replicas'] !== undefined && Number(merged['min.insync.replicas']) > topic.replicationFactor) {
      throw new ClusterError('VALIDATION_FAILED', `min.insync.replicas ${merged['min.insync.replicas']} exceeds the replication factor ${topic.replicationFactor} of ${topicName}`)
    }
    topic.configs = merged
    await this.metadataFile.save()
  }

  /**
   * Client IncrementalAlterConfigs: sets and removes dynamic configs in one change, all validated first, so
   * a refused request changes nothing. Allowed on mirror topics (the next sync rewrites the configs it mirrors).
   */
  async updateTopicConfigs(topicName: string, change: { set?: Record<string, string>; delete?: string[] }): Promise<Record<string, string>> {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
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
    if (next['min.insync.replicas'] !== undefined && Number(next['min.insync.replicas']) > topic.replicationFactor) {
      throw new ClusterError('VALIDATION_FAILED', `min.insync.replicas ${next['min.insync.replicas']} exceeds the replication factor ${topic.replicationFactor} of ${topicName}`, {
        details: { config: 'min.insync.replicas' },
      })
    }
    topic.configs = next
    await this.metadataFile.save()
    return { ...next }
  }

  /** Removes dynamic configs (back to the cluster defaults). */
  async deleteTopicConfigs(topicName: string, keys: string[]): Promise<void> {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) throw new ClusterError('VALIDATION_FAILED', 'config keys must be an array of strings')
    const next = { ...topic.configs }
    for (const key of keys) delete next[key]
    topic.configs = next
    await this.metadataFile.save()
  }

  private checkClientWritable(topic: TopicMetadata): void {
    if (topic.internal) throw new ClusterError('VALIDATION_FAILED', `${topic.name} is an internal topic`)
    if (topic.readOnly) {
      throw new ClusterError('TOPIC_READ_ONLY', `topic ${topic.name} is the destination of mirror ${topic.mirror?.name ?? '(unknown)'} and is read-only until it is stopped`, {
        details: { topic: topic.name, mirror: topic.mirror?.name ?? null },
      })
    }
  }

  // PRODUCING

  /** Partitions the records of one produce call (explicit partition, key hash, or round-robin), validating all. */
  private planProduce(topicName: string, options: { partition?: number; records: unknown }): ProducePlan {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
    this.checkClientWritable(topic)
    const records = validateRecords(options?.records)
    if (options.partition !== undefined) this.requirePartition({ topic: topicName, partition: options.partition })
    const count = topic.partitions.length
    const groups = new Map<number, { partition: number; indices: number[]; records: typeof records }>()
    records.forEach((record, index) => {
      let partition = options.partition
      if (partition === undefined) {
        if (record.key !== undefined && record.key !== null) {
          partition = partitionForKey(typeof record.key === 'string' ? new TextEncoder().encode(record.key) : record.key, count)
        } else {
          const next = this.roundRobin.get(topicName) ?? 0
          this.roundRobin.set(topicName, next + 1)
          partition = next % count
        }
      }
      let group = groups.get(partition)
      if (!group) {
        group = { partition, indices: [], records: [] }
        groups.set(partition, group)
      }
      group.indices.push(index)
      group.records.push(record)
    })
    return { topic: topicName, groups: [...groups.values()], recordCount: records.length, deadline: this.clock.now() + this.config.requestTimeoutMs }
  }

  /** Appends a plan, one batch per partition, each with the session's next sequence for that partition. */
  private async appendPlanned(plan: ProducePlan, session: ProducerSession | null, acks: Acks = 'all'): Promise<ProduceResult> {
    const offsets: Array<{ partition: number; offset: number }> = new Array(plan.recordCount)
    await Promise.all(
      plan.groups.map(async (group) => {
        const baseOffset = await this.appendGroup({ topic: plan.topic, partition: group.partition }, group.records, session, acks, plan.deadline)
        group.indices.forEach((index, i) => {
          offsets[index] = { partition: group.partition, offset: baseOffset + i }
        })
      }),
    )
    return { records: offsets }
  }

  /**
   * One batch to one partition, as Kafka's idempotent producer sends it:
   * - leadership moved before the batch was committed → resend once with the same sequence: the new leader
   *   recognises it if it already holds it, so the retry neither loses nor duplicates records;
   * - the cluster's shared idempotent session is out of step with the partition (its earlier batches were lost
   *   to an unclean election) → start a new session (new producer id, sequence 0) and resend once, as Kafka's
   *   producer resets its epoch and sequences (KIP-360).
   */
  private async appendGroup(tp: TopicPartition, records: ReturnType<typeof validateRecords>, session: ProducerSession | null, acks: Acks, deadline: number): Promise<number> {
    const partition = this.requirePartition(tp)
    const key = tpKey(tp)
    let current = session
    let baseSequence: number | undefined
    for (let attempt = 0; ; attempt++) {
      let append
      try {
        append = await partition.appendOnLeader(acks, async (log, leaderEpoch) => {
          if (!current) return log.appendAsLeader(records, { leaderEpoch })
          const first = baseSequence === undefined
          baseSequence ??= current.sequences.peek(key)
          const result = await log.appendAsLeader(records, {
            leaderEpoch,
            producerId: current.producerId,
            producerEpoch: current.producerEpoch,
            baseSequence,
            transactional: current.transactional,
          })
          if (first) current.sequences.advance(key, records.length)
          return result
        })
      } catch (error) {
        if (attempt === 0 && current && !current.transactional && isClusterError(error, 'OUT_OF_ORDER_SEQUENCE')) {
          current = await this.resetIdempotentSession(current)
          baseSequence = undefined
          continue
        }
        throw error
      }
      if (acks === 'leader') return append.result.baseOffset
      try {
        await partition.awaitCommitted(append, deadline)
        return append.result.baseOffset
      } catch (error) {
        if (current && attempt === 0 && isClusterError(error, 'NOT_LEADER_OR_FOLLOWER')) continue
        throw error
      }
    }
  }

  private async resetIdempotentSession(stale: ProducerSession): Promise<ProducerSession> {
    const current = this.idempotentSession ? await this.idempotentSession : null
    if (current && current !== stale) return current
    this.idempotentSession = null
    return this.sharedIdempotentSession()
  }

  private sharedIdempotentSession(): Promise<ProducerSession> {
    this.idempotentSession ??= this.producerIds.allocate().then(
      (producerId) => ({ producerId, producerEpoch: 0, transactional: false, sequences: new SequenceBook() }),
      (error: unknown) => {
        this.idempotentSession = null
        throw error
      },
    )
    return this.idempotentSession
  }

  /**
   * Client produce (API.md "Producing"): idempotent by default with one producer id per cluster session;
   * `idempotent: false` writes without a producer id. Refused with TOPIC_READ_ONLY on a mirror topic.
   */
  async produce(topic: string, options: ProduceOptions): Promise<ProduceResult> {
    const plan = this.planProduce(topic, options)
    const acks = this.validateAcks(options.acks)
    const session = options.idempotent === false ? null : await this.sharedIdempotentSession()
    return this.appendPlanned(plan, session, acks)
  }

  private validateAcks(acks: unknown): Acks {
    if (acks === undefined) return 'all'
    if (acks !== 'all' && acks !== 'leader') throw new ClusterError('VALIDATION_FAILED', `acks must be "all" or "leader"`)
    return acks
  }

  /**
   * A raw Produce request: one batch with exactly the producer id, epoch and base sequence given, validated by
   * the partition leader as Kafka does (duplicates return the original offsets; gaps → OUT_OF_ORDER_SEQUENCE;
   * an older epoch → INVALID_PRODUCER_EPOCH). For tests and tools that play a producer themselves.
   */
  async produceBatch(tp: TopicPartition, options: ProduceBatchOptions): Promise<{ baseOffset: number; lastOffset: number; duplicate: boolean }> {
    this.ensureReachable()
    const topic = this.requireTopic(tp.topic)
    this.checkClientWritable(topic)
    const partition = this.requirePartition(tp)
    const records = validateRecords(options?.records)
    const acks = this.validateAcks(options.acks)
    const { producerId, producerEpoch, baseSequence, transactional } = options
    if (producerId !== undefined && producerId !== -1) {
      if (!isInteger(producerId, 0) || !isInteger(producerEpoch, 0) || producerEpoch > 32_767 || !isInteger(baseSequence, 0)) {
        throw new ClusterError('VALIDATION_FAILED', 'a batch with a producer id needs a producerEpoch (0..32767) and a non-negative baseSequence')
      }
    } else if (transactional) {
      throw new ClusterError('VALIDATION_FAILED', 'a transactional batch needs a producer id')
    }
    const deadline = partition.requestDeadline()
    const append = await partition.appendOnLeader(acks, (log, leaderEpoch) => {
      if (producerId === undefined || producerId === -1) return log.appendAsLeader(records, { leaderEpoch })
      return log.appendAsLeader(records, { leaderEpoch, producerId, producerEpoch: producerEpoch!, baseSequence: baseSequence!, transactional: transactional ?? false })
    })
    if (acks === 'all') await partition.awaitCommitted(append, deadline)
    return append.result
  }

  // TRANSACTIONS

  get transactionCoordinator(): TransactionCoordinator {
    return this.coordinator
  }

  /** Kafka's initTransactions(): a handle with a fresh producer epoch; fences older producers of the same id. */
  async createTransactionalProducer(transactionalId: string, options: { transactionTimeoutMs?: number } = {}): Promise<TransactionalProducer> {
    this.ensureReachable()
    validateTransactionalId(transactionalId)
    const { producerId, producerEpoch } = await this.coordinator.initProducerId(transactionalId, options)
    const producer = new TransactionalProducer(
      {
        transactionCoordinator: this.coordinator,
        planProduce: (topic, o) => this.planProduce(topic, o),
        appendPlanned: (plan, session) => this.appendPlanned(plan, session, 'all'),
        forgetTransactionalProducer: (handle) => this.transactionalProducers.delete(handle),
      },
      transactionalId,
      producerId,
      producerEpoch,
    )
    this.transactionalProducers.set(producer.handle, producer)
    return producer
  }

  /** The open handle with this id (API: `/producers/{handle}`). */
  transactionalProducer(handle: string): TransactionalProducer {
    const producer = this.transactionalProducers.get(handle)
    if (!producer) throw new ClusterError('NOT_FOUND', `no transactional producer ${JSON.stringify(handle)} in ${this.name}`)
    return producer
  }

  /**
   * Kafka WriteTxnMarkers for one partition, acks=all. A partition that became a mirror destination after the
   * transaction began (the old source after a failback) takes its history from the mirror only: the marker is
   * not written there, and the transaction ends as if it had been (the mirrored log already decided it).
   */
  private async writeTxnMarker(tp: TopicPartition, type: 'COMMIT' | 'ABORT', producerId: number, producerEpoch: number): Promise<void> {
    this.ensureOpen()
    if (this.requireTopic(tp.topic).readOnly) return
    const partition = this.requirePartition(tp)
    const deadline = partition.requestDeadline()
    const append = await partition.appendControl(type, { producerId, producerEpoch })
    await partition.awaitCommitted(append, deadline)
  }

  // READING

  /**
   * The records view of API.md: one entry per offset holding a record (control records included), from the
   * leader, bounded by the high watermark (read_uncommitted) or the last stable offset (read_committed).
   */
  async readRecords(topicName: string, partitionIndex: number, options: ReadRecordsOptions = {}): Promise<RecordsPage> {
    this.ensureReachable()
    const partition = this.requirePartition({ topic: topicName, partition: partitionIndex })
    const isolation = options.isolation ?? 'read_uncommitted'
    if (isolation !== 'read_uncommitted' && isolation !== 'read_committed') throw new ClusterError('VALIDATION_FAILED', `unknown isolation level ${JSON.stringify(isolation)}`)
    const limit = options.limit === undefined ? 100 : validateCount(options.limit, 'limit', MAX_READ_LIMIT)
    const log = partition.leaderLog()
    const fromOffset = options.fromOffset === undefined ? log.logStartOffset : validateOffset(options.fromOffset, 'fromOffset')
    if (fromOffset < log.logStartOffset || fromOffset > log.logEndOffset) {
      throw new ClusterError('OFFSET_OUT_OF_RANGE', `offset ${fromOffset} is outside [${log.logStartOffset}, ${log.logEndOffset}] of ${topicName}-${partitionIndex}`, {
        details: { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset },
      })
    }
    const records: RecordView[] = []
    let offset = fromOffset
    const bound = isolation === 'read_committed' ? log.lastStableOffset : log.highWatermark
    try {
      while (records.length < limit && offset < bound) {
        const read = await log.read(offset, READ_CHUNK_BYTES, { isolation, maxOffset: bound })
        const last = read.batches.at(-1)
        if (!last) break
        for (const record of recordsOfRead(read, offset, isolation)) {
          const view = toRecordView(record)
          if (view) records.push(view)
          if (records.length >= limit) break
        }
        offset = last.lastOffset + 1
      }
    } catch (error) {
      throw toClusterError(error)
    }
    return {
      topic: topicName,
      partition: partitionIndex,
      logStartOffset: log.logStartOffset,
      highWatermark: log.highWatermark,
      lastStableOffset: log.lastStableOffset,
      logEndOffset: log.logEndOffset,
      leaderEpoch: partition.metadata.leaderEpoch,
      records,
    }
  }

  /** Kafka ListOffsets: earliest (log start), latest (HW, or LSO for read_committed), or the first offset at/after a timestamp. */
  async listOffsets(tp: TopicPartition, spec: OffsetSpec, isolation: IsolationLevel = 'read_uncommitted'): Promise<{ offset: number | null; timestamp: number | null; leaderEpoch: number | null }> {
    this.ensureReachable()
    const partition = this.requirePartition(tp)
    const log = partition.leaderLog()
    if (spec === 'earliest') return { offset: log.logStartOffset, timestamp: null, leaderEpoch: log.epochForOffset(log.logStartOffset) }
    if (spec === 'latest') {
      const offset = isolation === 'read_committed' ? log.lastStableOffset : log.highWatermark
      return { offset, timestamp: null, leaderEpoch: log.latestEpoch() }
    }
    if (spec === null || typeof spec !== 'object' || !isInteger(spec.timestamp, 0)) {
      throw new ClusterError('VALIDATION_FAILED', 'offset spec must be "earliest", "latest" or { timestamp: ms }')
    }
    const found = await log.offsetForTimestamp(spec.timestamp)
    if (!found || found.offset >= log.highWatermark) return { offset: null, timestamp: null, leaderEpoch: null }
    return { offset: found.offset, timestamp: found.timestamp, leaderEpoch: found.leaderEpoch }
  }

  /** Client DeleteRecords: refused on read-only (mirror) topics; at most up to the high watermark. */
  async deleteRecords(tp: TopicPartition, beforeOffset: number): Promise<{ logStartOffset: number }> {
    this.ensureReachable()
    const topic = this.requireTopic(tp.topic)
    this.checkClientWritable(topic)
    const partition = this.requirePartition(tp)
    const offset = validateOffset(beforeOffset, 'beforeOffset')
    return { logStartOffset: await partition.deleteRecordsBefore(offset) }
  }

  // SOURCE CLUSTER PORT

  async fetch(requests: FetchPartitionRequest[], options: FetchOptions): Promise<FetchPartitionResult[]> {
    if (!Array.isArray(requests)) throw new ClusterError('VALIDATION_FAILED', 'fetch needs an array of partitions')
    if (!isInteger(options?.maxBytes, 1)) throw new ClusterError('VALIDATION_FAILED', 'fetch maxBytes must be a positive integer')
    const maxWaitMs = options.maxWaitMs ?? 0
    if (!isInteger(maxWaitMs, 0)) throw new ClusterError('VALIDATION_FAILED', 'fetch maxWaitMs must be a non-negative integer')
    for (const r of requests) {
      if (typeof r?.topic !== 'string' || !isInteger(r.partition, 0) || !isInteger(r.fetchOffset, 0) || !isInteger(r.lastFetchedEpoch, -1) || !isInteger(r.maxBytes, 1)) {
        throw new ClusterError('VALIDATION_FAILED', `invalid fetch request ${JSON.stringify(r)}`)
      }
    }
    // Each partition is looked up once per fetch, not once per pass: a held fetch passes over its partitions
    // twice, and a mirror's fetch names thousands.
    const partitions = requests.map((request) => (this.topicNamed(request.topic) ? this.partitions.get(partitionKey(request.topic, request.partition)) : undefined))
    if (maxWaitMs === 0 || options.signal?.aborted) return this.fetchNow(requests, partitions, options.maxBytes)
    // Registered before the first pass: data that lands while the pass yields to the event loop still wakes it.
    let woken = false
    let wake: () => void = () => {
      woken = true
    }
    const waiter = { partitions: new Set(partitions.filter((partition) => partition !== undefined)), wake: () => wake() }
    this.fetchWaiters.add(waiter)
    try {
      const first = await this.fetchNow(requests, partitions, options.maxBytes)
      if (woken || this.closed || options.signal?.aborted || first.some((result) => !isQuietResult(result))) {
        return woken ? await this.fetchNow(requests, partitions, options.maxBytes) : first
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, maxWaitMs)
        function done() {
          clearTimeout(timer)
          options.signal?.removeEventListener('abort', done)
          resolve()
        }
        wake = done
        options.signal?.addEventListener('abort', done, { once: true })
      })
      return await this.fetchNow(requests, partitions, options.maxBytes)
    } finally {
      this.fetchWaiters.delete(waiter)
    }
  }

  private async fetchNow(requests: FetchPartitionRequest[], partitions: Array<ReplicatedPartition | undefined>, maxBytes: number): Promise<FetchPartitionResult[]> {
    let remaining = maxBytes
    const results: FetchPartitionResult[] = []
    // A fetch for thousands of partitions is thousands of microtasks; without turns of the event loop in
    // between, one fetch would hold every request the server is serving.
    const slice = new TimeSlice()
    for (const [index, request] of requests.entries()) {
      const turn = slice.maybeYield()
      if (turn) await turn
      // Most partitions of a large fetch have nothing to read; they are answered without a promise each.
      const result = this.answerWithoutRead(request, partitions[index]) ?? (await this.fetchPartition(request, remaining))
      if (result.ok) remaining -= result.records.byteLength
      results.push(result)
    }
    return results
  }

  /**
   * The answer for a partition whose fetch reads nothing (the fetcher is at the high watermark, or the answer
   * is an error or a divergence), or null when records must be read: then fetchPartition answers.
   */
  private answerWithoutRead(request: FetchPartitionRequest, partition: ReplicatedPartition | undefined): FetchPartitionResult | null {
    if (this.closed || this.alive.size === 0) return null
    // A partition looked up before a pass that yielded may have been deleted since (its topic's metadata is
    // gone or new): fetchPartition says what there is now.
    if (!partition || this.topicNamed(request.topic) !== partition.topicMetadata) return null
    if (partition.metadata.leader < 0 || !this.alive.has(partition.metadata.leader)) return null
    let log: PartitionLogApi
    try {
      log = partition.leaderLog()
    } catch {
      return null
    }
    if (request.fetchOffset !== log.highWatermark || request.fetchOffset < log.logStartOffset) return null
    // Only the common case: the epoch check passes with no divergence. Anything else takes the full path.
    if (request.lastFetchedEpoch >= 0) {
      const answer = partition.leaderEndOffsetForEpoch(request.lastFetchedEpoch)
      if (answer.endOffset < 0 || divergingEpoch(answer, request.lastFetchedEpoch, request.fetchOffset)) return null
    }
    return {
      ok: true,
      topic: request.topic,
      partition: request.partition,
      leaderEpoch: partition.metadata.leaderEpoch,
      records: new Uint8Array(0),
      highWatermark: log.highWatermark,
      lastStableOffset: log.lastStableOffset,
      logStartOffset: log.logStartOffset,
      divergingEpoch: null,
      nextRecordTimestamp: null,
    }
  }

  private async fetchPartition(request: FetchPartitionRequest, remaining: number): Promise<FetchPartitionResult> {
    const { topic, partition: index, fetchOffset, lastFetchedEpoch } = request
    const fail = (code: Extract<FetchPartitionResult, { ok: false }>['error']['code'], message: string, extra: { logStartOffset?: number; logEndOffset?: number } = {}): FetchPartitionResult => ({
      ok: false,
      topic,
      partition: index,
      error: { code, message },
      ...extra,
    })
    if (this.closed || this.alive.size === 0) return fail('SOURCE_UNAVAILABLE', `cluster ${this.name} is not reachable`)
    const partition = this.topicNamed(topic) ? this.partitions.get(partitionKey(topic, index)) : undefined
    if (!partition) return fail('UNKNOWN_TOPIC_OR_PARTITION', `${topic}-${index} does not exist in ${this.name}`)
    let log: PartitionLogApi
    try {
      log = partition.leaderLog()
    } catch {
      return fail('LEADER_NOT_AVAILABLE', `${topic}-${index} has no leader`)
    }
    const range = { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset }
    const base = { ok: true as const, topic, partition: index, leaderEpoch: partition.metadata.leaderEpoch }
    // KIP-320: validate the caller's last fetched epoch against our history before returning any data.
    if (lastFetchedEpoch >= 0) {
      const answer = partition.leaderEndOffsetForEpoch(lastFetchedEpoch)
      if (answer.endOffset < 0) return fail('OFFSET_OUT_OF_RANGE', `epoch ${lastFetchedEpoch} is unknown to ${topic}-${index}`, range)
      if (fetchOffset < log.logStartOffset) return fail('OFFSET_OUT_OF_RANGE', `offset ${fetchOffset} is below the log start offset ${log.logStartOffset}`, range)
      const diverging = divergingEpoch(answer, lastFetchedEpoch, fetchOffset)
      if (diverging) {
        return {
          ...base,
          records: new Uint8Array(0),
          highWatermark: log.highWatermark,
          lastStableOffset: log.lastStableOffset,
          logStartOffset: log.logStartOffset,
          divergingEpoch: diverging,
          nextRecordTimestamp: null,
        }
      }
    }
    if (fetchOffset < log.logStartOffset || fetchOffset > log.logEndOffset) {
      return fail('OFFSET_OUT_OF_RANGE', `offset ${fetchOffset} is outside [${log.logStartOffset}, ${log.logEndOffset}] of ${topic}-${index}`, range)
    }
    try {
      const highWatermark = log.highWatermark
      let records: Uint8Array = new Uint8Array(0)
      let end = fetchOffset
      if (remaining > 0 && fetchOffset < highWatermark) {
        const read = await log.read(fetchOffset, Math.min(request.maxBytes, remaining), { isolation: 'read_uncommitted', maxOffset: highWatermark })
        records = read.records
        end = (read.batches.at(-1)?.lastOffset ?? fetchOffset - 1) + 1
      }
      let nextRecordTimestamp: number | null = null
      if (end < highWatermark) {
        const next = (await log.read(end, 1, { isolation: 'read_uncommitted', maxOffset: highWatermark })).batches[0]
        if (next) nextRecordTimestamp = next.timestampType === 'LogAppendTime' || next.hasDeleteHorizon ? next.maxTimestamp : next.baseTimestamp
      }
      return {
        ...base,
        records,
        highWatermark,
        lastStableOffset: log.lastStableOffset,
        logStartOffset: log.logStartOffset,
        divergingEpoch: null,
        nextRecordTimestamp,
      }
    } catch (error) {
      const converted = toClusterError(error)
      if (isClusterError(converted, 'OFFSET_OUT_OF_RANGE')) return fail('OFFSET_OUT_OF_RANGE', converted.message, range)
      if (isClusterError(converted, 'CORRUPT_RECORD')) return fail('CORRUPT_MESSAGE', converted.message)
      if (isClusterError(converted, 'LOG_CLOSED')) return fail('NOT_LEADER_OR_FOLLOWER', converted.message)
      throw converted
    }
  }

  async endOffsetForEpoch(topicPartition: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset> {
    this.ensureReachable()
    if (!isInteger(leaderEpoch, -1)) throw new ClusterError('VALIDATION_FAILED', `invalid leader epoch ${JSON.stringify(leaderEpoch)}`)
    return this.requirePartition(topicPartition).leaderEndOffsetForEpoch(leaderEpoch)
  }

  async listGroupOffsets(): Promise<GroupOffsets[]> {
    this.ensureReachable()
    return this.groups.listGroupOffsets()
  }

  setMirrorDirectory(directory: MirrorDirectory | null): void {
    this.mirrorDirectory = directory
  }

  async listHostedMirrors(filter?: { topics?: string[] }): Promise<HostedMirror[]> {
    this.ensureReachable()
    return this.mirrorDirectory ? this.mirrorDirectory.listHostedMirrors(filter) : []
  }

  async lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Promise<Map<string, LastMirrorPosition>> {
    this.ensureReachable()
    return this.mirrorDirectory ? this.mirrorDirectory.lastMirrorPositions(sourceClusterId, partitions) : new Map()
  }

  // CONSUMER GROUPS

  async joinGroup(groupId: string, options: { memberId?: string; sessionTimeoutMs?: number } = {}): Promise<string> {
    this.ensureReachable()
    return this.groups.joinGroup(groupId, options)
  }

  async heartbeat(groupId: string, memberId: string): Promise<void> {
    this.ensureReachable()
    this.groups.heartbeat(groupId, memberId)
  }

  async leaveGroup(groupId: string, memberId: string): Promise<void> {
    this.ensureReachable()
    await this.groups.leaveGroup(groupId, memberId)
  }

  private validateCommittedOffset(tp: TopicPartition, offset: unknown): number {
    const partition = this.requirePartition(tp)
    const value = validateOffset(offset, 'offset')
    const end = partition.offsets().logEndOffset
    if (value > end) {
      throw new ClusterError('OFFSET_OUT_OF_RANGE', `offset ${value} is beyond the log end offset ${end} of ${tp.topic}-${tp.partition}`, { details: { logEndOffset: end } })
    }
    return value
  }

  /** Client OffsetCommit; a group with active members accepts commits from its members only. */
  async commitOffsets(groupId: string, offsets: Array<TopicPartition & { offset: number; leaderEpoch?: number | null }>, options: { memberId?: string } = {}): Promise<void> {
    this.ensureReachable()
    if (!Array.isArray(offsets) || offsets.length === 0) throw new ClusterError('VALIDATION_FAILED', 'offsets must be a non-empty array')
    const valid = offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: this.validateCommittedOffset(o, o.offset), leaderEpoch: o.leaderEpoch ?? null }))
    await this.groups.commitOffsets(groupId, valid, options)
  }

  async describeGroups(): Promise<GroupDescription[]> {
    this.ensureReachable()
    return this.groups.describeGroups()
  }

  /**
   * The mirror's group offset sync. `leaderEpoch` is optional (an extension of the port): KIP-1279 §3.6
   * commits the source's epoch when the offset was not clamped.
   */
  async commitSyncedGroupOffset(groupId: string, topicPartition: TopicPartition, offset: number, leaderEpoch: number | null = null): Promise<boolean> {
    this.ensureReachable()
    const value = this.validateCommittedOffset(topicPartition, offset)
    if (leaderEpoch !== null && !isInteger(leaderEpoch, 0)) throw new ClusterError('VALIDATION_FAILED', `invalid leader epoch ${JSON.stringify(leaderEpoch)}`)
    return this.groups.commitSyncedOffset(groupId, topicPartition, value, leaderEpoch)
  }

  // MIRROR HOST PORT

  async createMirrorTopic(spec: { name: string; topicId: string; partitions: number; replicationFactor?: number; configs?: Record<string, string>; mirror: string }): Promise<TopicDescription> {
    this.ensureReachable()
    const name = validateTopicName(spec?.name)
    const topicId = validateTopicId(spec.topicId)
    if (typeof spec.mirror !== 'string' || !NAME_PATTERN.test(spec.mirror)) throw new ClusterError('VALIDATION_FAILED', `invalid mirror name ${JSON.stringify(spec.mirror)}`)
    const { partitions, replicationFactor } = this.validateNewTopic(name, spec.partitions, spec.replicationFactor)
    const configs = validateTopicConfigs(spec.configs)
    this.unusedTopicId(topicId)
    const topic: TopicMetadata = { name, topicId, internal: false, replicationFactor, configs, readOnly: true, mirror: { name: spec.mirror }, partitions: [] }
    await this.addTopic(topic, partitions)
    return this.describe(topic)
  }

  async createMirrorPartitions(topicName: string, totalCount: number): Promise<void> {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
    const count = validateCount(totalCount, 'partition count', MAX_PARTITIONS)
    if (count > topic.partitions.length) await this.addPartitions(topic, count)
  }

  async appendMirroredBatches(topicPartition: TopicPartition, records: Uint8Array): Promise<{ logEndOffset: number; highWatermark: number; lastBatchEpoch: number }> {
    this.ensureReachable()
    if (!(records instanceof Uint8Array)) throw new ClusterError('VALIDATION_FAILED', 'records must be bytes')
    const partition = this.requirePartition(topicPartition)
    const deadline = partition.requestDeadline()
    const append = await partition.appendVerbatim(records)
    await partition.awaitCommitted(append, deadline)
    const log = partition.leaderLog()
    return { logEndOffset: log.logEndOffset, highWatermark: log.highWatermark, lastBatchEpoch: append.result.lastBatchEpoch }
  }

  async truncateTo(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    this.ensureReachable()
    const partition = this.requirePartition(topicPartition)
    return partition.truncateAllReplicas(validateOffset(offset, 'offset'))
  }

  async truncateFullyAndStartAt(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number }> {
    this.ensureReachable()
    const partition = this.requirePartition(topicPartition)
    return partition.truncateFullyAllReplicas(validateOffset(offset, 'offset'))
  }

  async deleteRecordsBefore(topicPartition: TopicPartition, offset: number, options: { bypassReadOnly: true }): Promise<void> {
    this.ensureReachable()
    if (options?.bypassReadOnly !== true) throw new ClusterError('VALIDATION_FAILED', 'deleteRecordsBefore is the mirror path; clients use deleteRecords')
    await this.requirePartition(topicPartition).deleteRecordsBefore(validateOffset(offset, 'offset'))
  }

  async bumpLeaderEpoch(topicPartition: TopicPartition, minimumEpoch: number): Promise<number> {
    this.ensureReachable()
    if (!isInteger(minimumEpoch, 0) || minimumEpoch > 2_147_483_647) throw new ClusterError('VALIDATION_FAILED', `invalid leader epoch ${JSON.stringify(minimumEpoch)}`)
    return this.requirePartition(topicPartition).bumpLeaderEpoch(minimumEpoch)
  }

  async latestEpoch(topicPartition: TopicPartition): Promise<number> {
    this.ensureReachable()
    return this.requirePartition(topicPartition).leaderLog().latestEpoch()
  }

  async latestEpochs(topicPartitions: TopicPartition[]): Promise<number[]> {
    this.ensureReachable()
    return topicPartitions.map((topicPartition) => this.requirePartition(topicPartition).leaderLog().latestEpoch())
  }

  async describePartition(topicPartition: TopicPartition): Promise<PartitionDescription> {
    this.ensureReachable()
    return this.describeReplicatedPartition(this.requirePartition(topicPartition))
  }

  async findControlRecord(topicPartition: TopicPartition, type: 'MIRROR_PID_RESET' | 'ABORT' | 'COMMIT', fromOffset: number): Promise<number | null> {
    this.ensureReachable()
    const log = this.requirePartition(topicPartition).leaderLog()
    let fetchOffset = Math.max(fromOffset, log.logStartOffset)
    while (fetchOffset < log.logEndOffset) {
      const result = await log.read(fetchOffset, READ_CHUNK_BYTES, { maxOffset: log.logEndOffset })
      if (result.batches.length === 0) return null
      for (const batch of result.batches) {
        if (batch.isControl && batch.lastOffset >= fromOffset && readControlInfo(batch.raw, batch).type === type) return batch.baseOffset
        fetchOffset = batch.lastOffset + 1
      }
    }
    return null
  }

  async openTransactions(topicPartition: TopicPartition): Promise<OpenTransaction[]> {
    this.ensureReachable()
    return this.requirePartition(topicPartition)
      .leaderLog()
      .openTransactions()
      .map((t) => ({ producerId: t.producerId, producerEpoch: t.producerEpoch, firstOffset: t.firstOffset }))
      .sort((a, b) => a.firstOffset - b.firstOffset || a.producerId - b.producerId)
  }

  async appendAbortMarkers(topicPartition: TopicPartition, producers: Array<{ producerId: number; producerEpoch: number }>): Promise<{ offsets: number[] }> {
    this.ensureReachable()
    const partition = this.requirePartition(topicPartition)
    if (!Array.isArray(producers) || producers.some((p) => !isInteger(p?.producerId, 0) || !isInteger(p.producerEpoch, 0))) {
      throw new ClusterError('VALIDATION_FAILED', 'producers must be { producerId, producerEpoch } pairs of non-negative integers')
    }
    const offsets: number[] = []
    const deadline = partition.requestDeadline()
    for (const producer of producers) {
      const append = await partition.appendControl('ABORT', producer)
      await partition.awaitCommitted(append, deadline)
      offsets.push(append.result.baseOffset)
    }
    return { offsets }
  }

  async appendMirrorPidReset(topicPartition: TopicPartition): Promise<{ offset: number }> {
    this.ensureReachable()
    const partition = this.requirePartition(topicPartition)
    const deadline = partition.requestDeadline()
    const append = await partition.appendControl('MIRROR_PID_RESET', {})
    await partition.awaitCommitted(append, deadline)
    return { offset: append.result.baseOffset }
  }

  async setReadOnly(topicName: string, readOnly: boolean, mirror: string | null): Promise<void> {
    this.ensureReachable()
    const topic = this.requireTopic(topicName)
    if (topic.internal) throw new ClusterError('VALIDATION_FAILED', `${topicName} is an internal topic`)
    if (typeof readOnly !== 'boolean') throw new ClusterError('VALIDATION_FAILED', 'readOnly must be a boolean')
    if (mirror !== null && (typeof mirror !== 'string' || !NAME_PATTERN.test(mirror))) throw new ClusterError('VALIDATION_FAILED', `invalid mirror name ${JSON.stringify(mirror)}`)
    topic.readOnly = readOnly
    topic.mirror = mirror === null ? null : { name: mirror }
    await this.metadataFile.save()
  }

  private async mirrorStatePartition(create: boolean): Promise<ReplicatedPartition | undefined> {
    if (!this.topicNamed(MIRROR_STATE_TOPIC)) {
      if (!create) return undefined
      const topic: TopicMetadata = {
        name: MIRROR_STATE_TOPIC,
        topicId: this.newTopicId(),
        internal: true,
        replicationFactor: Math.min(INTERNAL_TOPIC_REPLICATION_FACTOR, this.metadata.brokerIds.length),
        configs: { 'cleanup.policy': 'compact' },
        readOnly: false,
        mirror: null,
        partitions: [],
      }
      await this.addTopic(topic, 1)
    }
    return this.partitions.get(partitionKey(MIRROR_STATE_TOPIC, 0))
  }

  async appendMirrorState(entries: Array<{ key: string; value: string | null }>): Promise<void> {
    this.ensureReachable()
    if (!Array.isArray(entries) || entries.some((e) => typeof e?.key !== 'string' || e.key.length === 0 || (e.value !== null && typeof e.value !== 'string'))) {
      throw new ClusterError('VALIDATION_FAILED', 'mirror state entries must be { key: non-empty string, value: string | null }')
    }
    if (entries.length === 0) return
    const partition = (await this.mirrorStatePartition(true))!
    const records = entries.map((e) => ({ key: e.key, value: e.value }))
    const deadline = partition.requestDeadline()
    const append = await partition.appendOnLeader('all', (log, leaderEpoch) => log.appendAsLeader(records, { leaderEpoch }))
    await partition.awaitCommitted(append, deadline)
  }

  async readMirrorState(): Promise<Array<{ key: string; value: string | null }>> {
    this.ensureReachable()
    const partition = await this.mirrorStatePartition(false)
    if (!partition) return []
    const log = partition.leaderLog()
    const decoder = new TextDecoder()
    const out: Array<{ key: string; value: string | null }> = []
    let offset = log.logStartOffset
    const bound = log.highWatermark
    while (offset < bound) {
      const read = await log.read(offset, READ_CHUNK_BYTES, { maxOffset: bound })
      const last = read.batches.at(-1)
      if (!last) break
      for (const record of decodeRecords(read.batches, { fromOffset: offset, includeControl: false })) {
        if (record.key === null) continue
        out.push({ key: decoder.decode(record.key), value: record.value === null ? null : decoder.decode(record.value) })
      }
      offset = last.lastOffset + 1
    }
    return out
  }

  // INSPECTION (tests, demo)

  /** @internal visible for testing: one replica's log (undefined while its broker is stopped). */
  replicaLog(topicPartition: TopicPartition, brokerId: number): PartitionLogApi | undefined {
    return this.requirePartition(topicPartition).replicaLog(brokerId)
  }

  /** @internal visible for testing */
  replicatedPartition(topicPartition: TopicPartition): ReplicatedPartition {
    return this.requirePartition(topicPartition)
  }
}

/** A fetch answer with nothing in it for the fetcher to act on: no records, no divergence, no error. */
function isQuietResult(result: FetchPartitionResult): boolean {
  return result.ok && result.records.byteLength === 0 && result.divergingEpoch === null
}
