import 'server-only'
// Over 400 lines on purpose: the facade of two ports (SourceCluster, MirrorHost): one-line delegations to the files named in its header.
import { randomBytes } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { EpochEndOffset } from '@/lib/log/types'
import { PartitionLog } from '@/server/storage/partition-log'
import { forEachConcurrently, yieldToEventLoop } from '@/server/util/cooperative'
import type { IsolationLevel, PartitionLogApi, PartitionLogConfig } from '@/server/storage/types'
import { ClusterError } from '../errors'
import type {
  FetchOptions,
  FetchPartitionRequest,
  FetchPartitionResult,
  FetchSession,
  GroupOffsets,
  HostedMirror,
  LastMirrorPosition,
  MirrorHost,
  OpenTransaction,
  PartitionDescription,
  ReplicaLogState,
  SourceCluster,
  TopicDescription,
  TopicPartition,
  WriteFence,
  WriteFenceMethod,
} from '../ports'
import { Brokers, type BrokerDescription } from './brokers'
import { systemClock, type Clock } from './clock'
import { ClusterDirectory, isInteger, type LogOpener } from './cluster-directory'
import { resolveClusterConfig, type EmbeddedClusterConfig } from './config'
import { readJsonIfExists } from './durable-json'
import { GroupCoordinator, type GroupDescription } from './group-coordinator'
import { replicaHighWatermarks, type BrokerReplicaHighWatermark } from './high-watermarks'
import { ClusterMetadataSchema, NAME_PATTERN, type ClusterMetadata, type TopicMetadata } from './metadata'
import { MirrorHostPowers, type MirrorTopicSpec } from './mirror-host-powers'
import { MirrorStateLog, type MirrorStateEntry } from './mirror-state-log'
import { ProducePath, type ProduceBatchOptions, type ProduceOptions } from './produce-path'
import { ProducerIdManager } from './producer-ids'
import type { ProduceResult, TransactionalProducer } from './producers'
import { RecordsReader, type OffsetSpec, type ReadRecordsOptions } from './records-reader'
import type { RecordsPage } from './records-view'
import { ReplicatedPartition } from './replicated-partition'
import { EmbeddedFetchSession } from './fetch-session'
import { rotOneByte, type RottenByte } from './bit-rot'
import { copyPartitions, type CopiedPartition } from './partition-copies'
import { SourceFetch } from './source-fetch'
import { LOG_OPEN_CONCURRENCY, Topics, type CreateTopicSpec } from './topics'
import { TransactionCoordinator } from './transaction-coordinator'

export type { LogOpener } from './cluster-directory'
export type { BrokerDescription } from './brokers'
export type { CreateTopicSpec } from './topics'
export type { Acks, ProduceBatchOptions, ProduceOptions } from './produce-path'
export type { OffsetSpec, ReadRecordsOptions } from './records-reader'

/**
 * The embedded cluster: an in-process model of a Kafka cluster (DESIGN.md §3) that implements both ports the
 * mirroring engine uses, plus the client API the app, the demo and the tests use (produce, transactional
 * producers, records view, consumer groups, fault injection). This class is the facade: it owns the
 * lifecycle and the tick, and hands every request to the part named for it:
 *
 *   cluster-directory.ts   metadata, alive brokers, partitions by topic, replica log directories
 *   brokers.ts             broker stops and starts, elections (fault injection)
 *   topics.ts              topic administration and the client-write rule of read-only topics
 *   produce-path.ts        produce, raw Produce requests, transactional producers, txn markers
 *   records-reader.ts      the one chunked read loop; the records view and ListOffsets
 *   source-fetch.ts        the SourceCluster fetch (held fetches, one leader-epoch check)
 *   mirror-host-powers.ts  the MirrorHost powers (verbatim appends, truncation, epoch bumps, markers)
 *   mirror-state-log.ts    `__mirror_state` and the hosted mirrors answered from it
 *
 * Layout under `dir`: metadata.json and the replica logs (cluster-directory.ts), producer-ids.json (the next
 * producer-id block), transactions.json (the transaction coordinator), groups.json (consumer groups).
 * Every broker is started when the cluster opens (a process restart restarts the whole cluster).
 */

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

/** The default LogOpener: the replica's directory made if missing (a new replica), then its log opened. */
async function openReplicaLogIn(dir: string, config: PartitionLogConfig): Promise<PartitionLogApi> {
  await mkdir(dir, { recursive: true })
  return PartitionLog.open(dir, config)
}

/** Partitions per step of a cluster tick between turns of the event loop. */
const TICK_CHUNK = 256

export class EmbeddedCluster implements SourceCluster, MirrorHost {
  readonly name: string
  readonly dir: string
  readonly clock: Clock
  readonly config: EmbeddedClusterConfig

  private readonly directory: ClusterDirectory
  private readonly brokerControl: Brokers
  private readonly topics: Topics
  private readonly producePath: ProducePath
  private readonly reader: RecordsReader
  private readonly sourceFetch: SourceFetch
  private readonly powers: MirrorHostPowers
  private readonly mirrorState: MirrorStateLog
  private producerIds!: ProducerIdManager
  private coordinator!: TransactionCoordinator
  private groups!: GroupCoordinator
  private tickInFlight: Promise<void> | null = null
  private tickTimer: NodeJS.Timeout | null = null

  private constructor(dir: string, metadata: ClusterMetadata, options: EmbeddedClusterOptions, config: EmbeddedClusterConfig) {
    this.name = options.name
    this.dir = dir
    this.clock = options.clock ?? systemClock
    this.config = config
    this.directory = new ClusterDirectory(this.name, dir, this.clock, config, metadata, options.openLog ?? openReplicaLogIn)
    this.brokerControl = new Brokers(this.directory)
    this.topics = new Topics(this.directory, async (topic) => {
      this.producePath.forgetTopic(topic)
      await this.groups.forgetTopic(topic)
      await this.coordinator.forgetTopic(topic)
    })
    this.producePath = new ProducePath(
      this.directory,
      this.topics,
      () => this.producerIds,
      () => this.coordinator,
    )
    this.reader = new RecordsReader(this.directory)
    this.sourceFetch = new SourceFetch(this.directory)
    this.powers = new MirrorHostPowers(this.directory, this.topics)
    this.mirrorState = new MirrorStateLog(this.directory, this.topics)
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
    if (isNew) await cluster.directory.persistMetadata()
    await cluster.start()
    return cluster
  }

  private async start(): Promise<void> {
    const { directory } = this
    for (const id of directory.metadata.brokerIds) directory.alive.add(id)
    this.producerIds = await ProducerIdManager.open(path.join(this.dir, 'producer-ids.json'), {
      firstProducerId: this.config.firstProducerId,
      blockSize: this.config.producerIdBlockSize,
    })
    const registered: Array<{ topic: TopicMetadata; partition: ReplicatedPartition; index: number }> = []
    for (const topic of Object.values(directory.metadata.topics)) {
      for (const p of topic.partitions) {
        const partition = new ReplicatedPartition(directory.partitionHost, topic, p)
        directory.registerPartition(partition)
        registered.push({ topic, partition, index: registered.length })
      }
    }
    // Side by side, as a topic's creation opens its logs: each open ends with an fsync of the log's directory
    // (off the event loop), and 2,000 of them one after another were most of opening a drill's sandbox.
    const opened: Array<[ReplicatedPartition, Array<[number, PartitionLogApi]>]> = new Array(registered.length)
    await forEachConcurrently(registered, LOG_OPEN_CONCURRENCY, async ({ topic, partition, index }) => {
      const logs: Array<[number, PartitionLogApi]> = []
      for (const brokerId of partition.metadata.replicas) logs.push([brokerId, await directory.openReplicaLog(topic, partition.partition, brokerId)])
      opened[index] = [partition, logs]
    })
    await directory.removeStrayReplicaDirs()
    for (const [partition, logs] of opened) await partition.resume(logs)
    await this.mirrorState.load()
    this.coordinator = await TransactionCoordinator.open(
      path.join(this.dir, 'transactions.json'),
      {
        clock: this.clock,
        allocateProducerId: () => this.producerIds.allocate(),
        writeTxnMarker: (tp, type, producerId, producerEpoch) => this.producePath.writeTxnMarker(tp, type, producerId, producerEpoch),
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
    await this.shutDown('clean')
  }

  /**
   * Stops the brokers of a cluster whose directory is removed next (a drill's sandbox): appends in flight settle,
   * descriptors are released, and nothing is written — no index files, producer snapshots, checkpoints or
   * clean-shutdown markers for files about to go (a sandbox's clean close of 2,000 logs took 27–84 s under load).
   */
  async closeForRemoval(): Promise<void> {
    await this.shutDown('forRemoval')
  }

  /**
   * Restarts one partition's replica logs as after a crash of their broker: each log dropped without a close
   * (appends in flight settle, nothing is written) and opened again from its files, so its recovery scans and
   * checksums the active segment and replays producer state; the partition is then led as before, in the same
   * leader epoch. What a drill reads its producers' acknowledged writes back from, one partition at a time.
   */
  async restartPartitionAsAfterCrash(tp: TopicPartition): Promise<void> {
    const { directory } = this
    directory.ensureReachable()
    const partition = directory.requirePartition(tp)
    const topic = directory.requireTopic(tp.topic)
    await partition.lock.run(() => partition.closeForDeletion())
    const logs: Array<[number, PartitionLogApi]> = []
    for (const brokerId of partition.metadata.replicas) {
      if (directory.alive.has(brokerId)) logs.push([brokerId, await directory.openReplicaLog(topic, tp.partition, brokerId)])
    }
    await partition.resume(logs)
  }

  private async shutDown(how: 'clean' | 'forRemoval'): Promise<void> {
    const { directory } = this
    if (directory.closed) return
    directory.closed = true
    for (const waiter of directory.fetchWaiters) waiter.wake()
    for (const session of [...directory.fetchSessions]) session.close()
    if (this.tickTimer) clearInterval(this.tickTimer)
    await this.tickInFlight?.catch(() => undefined)
    this.producePath.closeProducers()
    // Each partition's high watermarks as its logs close, for the brokers' checkpoints written after.
    const highWatermarks: BrokerReplicaHighWatermark[] = []
    // A few at a time, the event loop given back between them: each close starts with synchronous work (the
    // active segment sealed), and 2,000 started at once (a drill's sandbox) ran theirs in one stretch.
    await forEachConcurrently(directory.allPartitions(), LOG_OPEN_CONCURRENCY, (p) =>
      p.lock.run(() => {
        if (how === 'forRemoval') return p.closeForDeletion()
        highWatermarks.push(...replicaHighWatermarks(p))
        return p.closeAll()
      }),
    )
    if (how === 'forRemoval') return
    await directory.highWatermarks.checkpointNow(highWatermarks)
    await directory.persistMetadata()
  }

  get isClosed(): boolean {
    return this.directory.closed
  }

  /**
   * One deterministic step of everything time-driven: follower catch-up, ISR shrink after
   * `replica.lag.time.max.ms`, elections for offline partitions, acks=all timeouts, transaction timeouts and
   * pending markers, group session expiry. Concurrent calls share the step in progress.
   */
  tick(): Promise<void> {
    if (this.directory.closed) return Promise.resolve()
    this.tickInFlight ??= this.runTick().finally(() => {
      this.tickInFlight = null
    })
    return this.tickInFlight
  }

  private async runTick(): Promise<void> {
    // Partitions tick a chunk at a time with the event loop given back in between: with thousands of
    // partitions, one Promise.all over all of them holds requests for the whole sweep.
    const partitions = this.directory.allPartitions().filter((partition) => !partition.idleForTick())
    for (let start = 0; start < partitions.length; start += TICK_CHUNK) {
      await Promise.all(partitions.slice(start, start + TICK_CHUNK).map((p) => p.tick()))
      if (start + TICK_CHUNK < partitions.length) await yieldToEventLoop()
    }
    await this.coordinator.onTick()
    await this.groups.expireMembers()
    this.directory.highWatermarks.maybeCheckpoint(this.clock.now(), () => this.directory.allPartitions())
  }

  // BROKERS (brokers.ts)

  brokers(): BrokerDescription[] {
    return this.brokerControl.list()
  }

  stopBroker(brokerId: number): Promise<void> {
    return this.brokerControl.stopBroker(brokerId)
  }

  startBroker(brokerId: number): Promise<void> {
    return this.brokerControl.startBroker(brokerId)
  }

  electLeader(topicPartition: TopicPartition, brokerId: number, options: { unclean?: boolean } = {}): Promise<PartitionDescription> {
    return this.brokerControl.electLeader(topicPartition, brokerId, options)
  }

  electLaggingReplicaUncleanly(topicPartition: TopicPartition, lostRecords: number): Promise<{ leader: number; previousLeader: number; logEndOffset: number; previousLogEndOffset: number }> {
    return this.brokerControl.electLaggingReplicaUncleanly(topicPartition, lostRecords)
  }

  // TOPICS (topics.ts)

  async clusterId(): Promise<string> {
    this.directory.ensureReachable()
    return this.directory.metadata.clusterId
  }

  /** Topic names without describing every partition (describeTopics of 10,000 partitions is one long synchronous pass). */
  async topicNames(): Promise<string[]> {
    return this.topics.topicNames()
  }

  async describeTopics(topics?: string[]): Promise<TopicDescription[]> {
    return this.topics.describeTopics(topics)
  }

  async describeTopic(name: string): Promise<TopicDescription> {
    this.directory.ensureReachable()
    return this.directory.describeTopic(this.directory.requireTopic(name))
  }

  async describePartition(topicPartition: TopicPartition): Promise<PartitionDescription> {
    this.directory.ensureReachable()
    return this.directory.describePartition(this.directory.requirePartition(topicPartition))
  }

  createTopic(spec: CreateTopicSpec): Promise<TopicDescription> {
    return this.topics.createTopic(spec)
  }

  createPartitions(topicName: string, totalCount: number): Promise<TopicDescription> {
    return this.topics.createPartitions(topicName, totalCount)
  }

  deleteTopic(topicName: string): Promise<void> {
    return this.topics.deleteTopic(topicName)
  }

  alterTopicConfigs(topicName: string, configs: Record<string, string>): Promise<void> {
    return this.topics.alterTopicConfigs(topicName, configs)
  }

  updateTopicConfigs(topicName: string, change: { set?: Record<string, string>; delete?: string[] }): Promise<Record<string, string>> {
    return this.topics.updateTopicConfigs(topicName, change)
  }

  deleteTopicConfigs(topicName: string, keys: string[]): Promise<void> {
    return this.topics.deleteTopicConfigs(topicName, keys)
  }

  deleteRecords(tp: TopicPartition, beforeOffset: number): Promise<{ logStartOffset: number }> {
    return this.topics.deleteRecords(tp, beforeOffset)
  }

  // PRODUCING AND TRANSACTIONS (produce-path.ts)

  produce(topic: string, options: ProduceOptions): Promise<ProduceResult> {
    return this.producePath.produce(topic, options)
  }

  produceBatch(tp: TopicPartition, options: ProduceBatchOptions): Promise<{ baseOffset: number; lastOffset: number; duplicate: boolean }> {
    return this.producePath.produceBatch(tp, options)
  }

  // WRITE FENCE (a planned switchover's source: topics.ts)

  /** The broker refuses fenced topics' client writes itself (TOPIC_WRITE_FENCED). */
  async writeFenceMethod(): Promise<WriteFenceMethod> {
    return 'broker'
  }

  fenceWrites(topics: readonly string[], fence: { mirror: string; operation: string }): Promise<void> {
    return this.topics.fenceWrites(topics, fence)
  }

  unfenceWrites(topics: readonly string[], mirror: string): Promise<void> {
    return this.topics.unfenceWrites(topics, mirror)
  }

  async writeFences(): Promise<WriteFence[]> {
    return this.topics.writeFences()
  }

  /** Aborts at the coordinator every transaction open on these topics (after a switchover's grace). */
  abortOpenTransactions(topics: readonly string[]): Promise<number> {
    this.directory.ensureReachable()
    return this.transactionCoordinator.abortTransactionsOn(topics)
  }

  get transactionCoordinator(): TransactionCoordinator {
    return this.coordinator
  }

  async transactionalIdsOf(producerIds: readonly number[]): Promise<Map<number, string>> {
    const wanted = new Set(producerIds)
    const ids = new Map<number, string>()
    for (const transaction of this.coordinator.list()) if (wanted.has(transaction.producerId)) ids.set(transaction.producerId, transaction.transactionalId)
    return ids
  }

  createTransactionalProducer(transactionalId: string, options: { transactionTimeoutMs?: number } = {}): Promise<TransactionalProducer> {
    return this.producePath.createTransactionalProducer(transactionalId, options)
  }

  transactionalProducer(handle: string): TransactionalProducer {
    return this.producePath.transactionalProducer(handle)
  }

  // READING (records-reader.ts)

  readRecords(topicName: string, partitionIndex: number, options: ReadRecordsOptions = {}): Promise<RecordsPage> {
    return this.reader.readRecords(topicName, partitionIndex, options)
  }

  listOffsets(tp: TopicPartition, spec: OffsetSpec, isolation: IsolationLevel = 'read_uncommitted'): Promise<{ offset: number | null; timestamp: number | null; leaderEpoch: number | null }> {
    return this.reader.listOffsets(tp, spec, isolation)
  }

  // SOURCE CLUSTER PORT (source-fetch.ts, mirror-state-log.ts)

  fetch(requests: FetchPartitionRequest[], options: FetchOptions): Promise<FetchPartitionResult[]> {
    return this.sourceFetch.fetch(requests, options)
  }

  openFetchSession(): FetchSession {
    this.directory.ensureOpen()
    return new EmbeddedFetchSession(this.directory, this.sourceFetch)
  }

  async endOffsetForEpoch(topicPartition: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset> {
    this.directory.ensureReachable()
    if (!isInteger(leaderEpoch, -1)) throw new ClusterError('VALIDATION_FAILED', `invalid leader epoch ${JSON.stringify(leaderEpoch)}`)
    return this.directory.requirePartition(topicPartition).leaderEndOffsetForEpoch(leaderEpoch)
  }

  async listHostedMirrors(filter?: { topics?: string[] }): Promise<HostedMirror[]> {
    return this.mirrorState.listHostedMirrors(filter)
  }

  async lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Promise<Map<string, LastMirrorPosition>> {
    return this.mirrorState.lastMirrorPositions(sourceClusterId, partitions)
  }

  // CONSUMER GROUPS (group-coordinator.ts)

  async listGroupOffsets(): Promise<GroupOffsets[]> {
    this.directory.ensureReachable()
    return this.groups.listGroupOffsets()
  }

  async joinGroup(groupId: string, options: { memberId?: string; sessionTimeoutMs?: number } = {}): Promise<string> {
    this.directory.ensureReachable()
    return this.groups.joinGroup(groupId, options)
  }

  async heartbeat(groupId: string, memberId: string): Promise<void> {
    this.directory.ensureReachable()
    this.groups.heartbeat(groupId, memberId)
  }

  async leaveGroup(groupId: string, memberId: string): Promise<void> {
    this.directory.ensureReachable()
    await this.groups.leaveGroup(groupId, memberId)
  }

  /** Client OffsetCommit; a group with active members accepts commits from its members only. */
  async commitOffsets(groupId: string, offsets: Array<TopicPartition & { offset: number; leaderEpoch?: number | null }>, options: { memberId?: string } = {}): Promise<void> {
    this.directory.ensureReachable()
    if (!Array.isArray(offsets) || offsets.length === 0) throw new ClusterError('VALIDATION_FAILED', 'offsets must be a non-empty array')
    const valid = offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: this.directory.validateCommittedOffset(o, o.offset), leaderEpoch: o.leaderEpoch ?? null }))
    await this.groups.commitOffsets(groupId, valid, options)
  }

  async describeGroups(): Promise<GroupDescription[]> {
    this.directory.ensureReachable()
    return this.groups.describeGroups()
  }

  /**
   * The mirror's group offset sync. `leaderEpoch` is optional (an extension of the port): KIP-1279 §3.6
   * commits the source's epoch when the offset was not clamped.
   */
  async commitSyncedGroupOffset(groupId: string, topicPartition: TopicPartition, offset: number, leaderEpoch: number | null = null): Promise<boolean> {
    this.directory.ensureReachable()
    const value = this.directory.validateCommittedOffset(topicPartition, offset)
    if (leaderEpoch !== null && !isInteger(leaderEpoch, 0)) throw new ClusterError('VALIDATION_FAILED', `invalid leader epoch ${JSON.stringify(leaderEpoch)}`)
    return this.groups.commitSyncedOffset(groupId, topicPartition, value, leaderEpoch)
  }

  // MIRROR HOST PORT (mirror-host-powers.ts, mirror-state-log.ts)

  createMirrorTopic(spec: MirrorTopicSpec): Promise<TopicDescription> {
    return this.powers.createMirrorTopic(spec)
  }

  createMirrorPartitions(topicName: string, totalCount: number): Promise<void> {
    return this.powers.createMirrorPartitions(topicName, totalCount)
  }

  appendMirroredBatches(topicPartition: TopicPartition, records: Uint8Array): Promise<{ logEndOffset: number; highWatermark: number; lastBatchEpoch: number }> {
    return this.powers.appendMirroredBatches(topicPartition, records)
  }

  truncateTo(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    return this.powers.truncateTo(topicPartition, offset)
  }

  truncateFullyAndStartAt(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number }> {
    return this.powers.truncateFullyAndStartAt(topicPartition, offset)
  }

  deleteRecordsBefore(topicPartition: TopicPartition, offset: number, options: { bypassReadOnly: true }): Promise<void> {
    return this.powers.deleteRecordsBefore(topicPartition, offset, options)
  }

  bumpLeaderEpoch(topicPartition: TopicPartition, minimumEpoch: number): Promise<number> {
    return this.powers.bumpLeaderEpoch(topicPartition, minimumEpoch)
  }

  async epochForOffset(topicPartition: TopicPartition, offset: number): Promise<number> {
    this.directory.ensureReachable()
    return this.directory.requirePartition(topicPartition).leaderLog().epochForOffset(offset)
  }

  async latestEpoch(topicPartition: TopicPartition): Promise<number> {
    return this.powers.latestEpochs([topicPartition])[0]!
  }

  async describeReplicas(topicPartition: TopicPartition): Promise<{ leader: number; replicas: ReplicaLogState[] }> {
    return this.powers.describeReplicas(topicPartition)
  }

  async latestEpochs(topicPartitions: TopicPartition[]): Promise<number[]> {
    return this.powers.latestEpochs(topicPartitions)
  }

  findControlRecord(topicPartition: TopicPartition, type: 'MIRROR_PID_RESET' | 'ABORT' | 'COMMIT', fromOffset: number): Promise<number | null> {
    return this.powers.findControlRecord(topicPartition, type, fromOffset)
  }

  async openTransactions(topicPartition: TopicPartition): Promise<OpenTransaction[]> {
    return this.powers.openTransactions(topicPartition)
  }

  appendAbortMarkers(topicPartition: TopicPartition, producers: Array<{ producerId: number; producerEpoch: number }>): Promise<{ offsets: number[] }> {
    return this.powers.appendAbortMarkers(topicPartition, producers)
  }

  appendMirrorPidReset(topicPartition: TopicPartition): Promise<{ offset: number }> {
    return this.powers.appendMirrorPidReset(topicPartition)
  }

  setReadOnly(topicName: string, readOnly: boolean, mirror: string | null): Promise<void> {
    return this.powers.setReadOnly(topicName, readOnly, mirror)
  }

  appendMirrorState(entries: MirrorStateEntry[]): Promise<void> {
    return this.mirrorState.append(entries)
  }

  readMirrorState(): Promise<MirrorStateEntry[]> {
    return this.mirrorState.read()
  }

  // COPIES (a drill's sandbox)

  /** A one-broker cluster directory in `targetDir` holding copies of these partitions as their leaders hold them now (partition-copies.ts). */
  copyPartitions(targetDir: string, partitions: readonly TopicPartition[]): Promise<CopiedPartition[]> {
    return copyPartitions(this.directory, targetDir, partitions)
  }

  // INSPECTION AND FAULTS (tests, demo)

  /** Flips one value byte in a segment of the partition's leader replica, on disk (bit-rot.ts); heal with `healRottenByte`. */
  async rotOneByte(topicPartition: TopicPartition): Promise<RottenByte & { broker: number }> {
    this.directory.ensureReachable()
    const partition = this.directory.requirePartition(topicPartition)
    const broker = partition.metadata.leader
    const log = broker < 0 ? undefined : partition.replicaLog(broker)
    if (log === undefined) throw new ClusterError('LEADER_NOT_AVAILABLE', `${topicPartition.topic}-${topicPartition.partition} of ${this.name} has no leader`)
    return { ...(await rotOneByte(log.dir)), broker }
  }

  /** @internal visible for testing: one replica's log (undefined while its broker is stopped). */
  replicaLog(topicPartition: TopicPartition, brokerId: number): PartitionLogApi | undefined {
    return this.directory.requirePartition(topicPartition).replicaLog(brokerId)
  }

  /** @internal visible for testing */
  replicatedPartition(topicPartition: TopicPartition): ReplicatedPartition {
    return this.directory.requirePartition(topicPartition)
  }
}
