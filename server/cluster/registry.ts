import 'server-only'
// Over 400 lines on purpose: the cluster registry's lifecycle (create, open, remove, per-cluster queue) over one durable file, for both kinds (Kafka's behaviour lives in kafka/; only the branching is here); splitting it would split one queue.
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import type { Cluster, CreateClusterRequest } from '@/lib/api/clusters'
import { NAME_PATTERN } from '@/lib/api/common'
import { ApiError } from '@/lib/api/errors'
import type { ClusterEvent } from '@/lib/api/events'
import type { Group, GroupOffset } from '@/lib/api/groups'
import type { Emulation } from '@/lib/api/mirrors'
import type { ProduceRequest, ProduceResponse, ProducerCreated, ProducerSendRequest, RecordEntry, RecordInput, RecordsQuery, RecordsResponse } from '@/lib/api/records'
import type { CreateTopicRequest, PartitionInfo, Topic } from '@/lib/api/topics'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { Logger } from '@/server/observability/logger'
import type { MetricFamily } from '@/server/observability/metrics'
import { EmbeddedCluster } from './embedded/embedded-cluster'
import type { HostAllowlist } from './kafka/allowed-hosts'
import { KafkaCluster } from './kafka/kafka-cluster'
import { connectionConfig, KafkaDefinition, readKafkaSecrets, removeKafkaSecrets, splitKafkaRequest, writeKafkaSecrets } from './kafka/kafka-definition'
import type { ProduceRecord } from './embedded/producers'
import type { RecordView } from './embedded/records-view'
import type { MirrorHost, SourceCluster, TopicDescription, TopicPartition } from './ports'

/**
 * The clusters the app manages (API.md "Clusters"), and the API's view of each. Definitions live in
 * `<dataDir>/clusters.json` (replaced atomically); an embedded cluster's data lives in
 * `<dataDir>/clusters/<name>/`. A definition is written before its cluster is created, so after a crash
 * the cluster is simply opened (created) again; a directory without a definition is a leftover and is
 * cleared before a cluster of that name is created.
 *
 * Clusters that fail to open stay listed as unavailable (with the reason) rather than stopping the app.
 */

const EmbeddedDefinition = z.object({
  name: z.string().regex(NAME_PATTERN),
  kind: z.literal('embedded'),
  brokers: z.number().int().min(1),
  /** Overrides of the embedded cluster's config given at creation; re-applied at every open. */
  config: z.object({ firstProducerId: z.number().int().nonnegative().optional(), transactionTimeoutMs: z.number().int().positive().optional() }),
  createdAt: z.number().int(),
})
type ClusterDefinition = z.infer<typeof EmbeddedDefinition> | KafkaDefinition

const DefinitionsFile = z.object({ version: z.literal(1), clusters: z.array(z.discriminatedUnion('kind', [EmbeddedDefinition, KafkaDefinition])) })

/** How often each embedded cluster runs its timers (transaction timeouts, ISR shrink, member expiry). */
const TICK_INTERVAL_MS = 500

interface OpenCluster {
  definition: ClusterDefinition
  cluster: EmbeddedCluster | null
  /** Set for clusters of kind kafka once connected (then `cluster` stays null). */
  kafka?: KafkaCluster | null
  /** Why the cluster could not be opened. */
  error: string | null
  /** Known at open, when every broker runs; served while the brokers are stopped. */
  clusterId: string
  topicCount: number
}

export interface ClusterRegistryOptions {
  dataDir: string
  log: Logger
  /** Receives a `cluster` event after every change made through the registry. */
  publish?: (event: ClusterEvent) => void
  now?: () => number
  /** MIRRORBOARD_KAFKA_ALLOWED_HOSTS; null or absent: any host. */
  kafkaAllowedHosts?: HostAllowlist | null
}

/**
 * Kafka's quick connection check gives up within about 5 s (3 s to connect, 5 s for an answer): every failure
 * that names no Kafka or TLS reason answers no sooner than this, whatever refused it, closed port or silent one.
 */
const CONNECTION_FAILURE_MIN_MS = 6000

/**
 * What a failed Kafka connection tells the caller. Reasons that come from a Kafka broker (SASL authentication)
 * or a TLS handshake (certificate checks) are what the operator must fix and say so; anything else (refused,
 * reset, timed out, unresolvable, not speaking Kafka) is one message, so the API cannot be used to probe which
 * addresses and ports of the server's network are open. The real reason goes to the server log.
 */
export function connectionFailureReason(servers: readonly string[], reason: string): { message: string; specific: boolean } {
  if (/authenticat|SASL|certificate|self[- ]signed|unable to verify|ERR_TLS/i.test(reason)) {
    return { message: reason.startsWith('could not connect') ? reason : `could not connect to ${servers.join(', ')}: ${reason}`, specific: true }
  }
  return { message: `could not connect to ${servers.join(', ')}: Connection failed: no Kafka broker answered (refused, unreachable, timed out, or not a Kafka listener)`, specific: false }
}

function toRecordEntry(view: RecordView): RecordEntry {
  return {
    ...view,
    // The log writes -1 for "no producer"; the API says null, like producerId.
    producerEpoch: view.producerId === null ? null : view.producerEpoch,
  }
}

function toProduceRecords(records: readonly RecordInput[]): ProduceRecord[] {
  return records.map((record) => {
    const decode = (value: string | null | undefined): string | Uint8Array | null | undefined =>
      record.encoding === 'base64' && typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : value
    const headers = Array.isArray(record.headers)
      ? record.headers
      : record.headers === undefined
        ? undefined
        : Object.entries(record.headers).map(([key, value]) => ({ key, value }))
    const result: ProduceRecord = { value: decode(record.value) ?? null }
    if (record.key !== undefined) result.key = decode(record.key) ?? null
    if (headers !== undefined) result.headers = headers.map((header) => ({ key: header.key, value: decode(header.value) ?? null }))
    if (record.timestamp !== undefined) result.timestamp = record.timestamp
    return result
  })
}

function toTopic(description: TopicDescription): Topic {
  return {
    name: description.name,
    topicId: description.topicId,
    partitions: description.partitions.length,
    replicationFactor: description.replicationFactor,
    readOnly: description.readOnly,
    mirror: description.mirror ? { name: description.mirror.name, role: 'destination' } : null,
    configs: description.configs,
  }
}

export class ClusterRegistry {
  private readonly clusters = new Map<string, OpenCluster>()
  private readonly file: string
  private readonly now: () => number
  /** Creations run one at a time: two requests for the same name must not both pass the existence check. */
  private creating: Promise<unknown> = Promise.resolve()
  private closed = false

  private constructor(private readonly options: ClusterRegistryOptions) {
    this.file = path.join(options.dataDir, 'clusters.json')
    this.now = options.now ?? Date.now
  }

  static async open(options: ClusterRegistryOptions): Promise<ClusterRegistry> {
    const registry = new ClusterRegistry(options)
    const text = await readTextIfExists(registry.file)
    const definitions = text === undefined ? [] : DefinitionsFile.parse(JSON.parse(text)).clusters
    for (const definition of definitions) {
      const entry: OpenCluster = { definition, cluster: null, error: null, clusterId: '', topicCount: 0 }
      registry.clusters.set(definition.name, entry)
      try {
        await registry.start(entry)
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error)
        options.log.error('could not open cluster', { cluster: definition.name, error })
      }
    }
    return registry
  }

  private clusterDir(name: string): string {
    return path.join(this.options.dataDir, 'clusters', name)
  }

  private async start(entry: OpenCluster): Promise<void> {
    const { definition } = entry
    if (definition.kind === 'kafka') {
      const kafka = await KafkaCluster.open(definition.name, connectionConfig(definition, await readKafkaSecrets(this.options.dataDir, definition.name), this.options.kafkaAllowedHosts ?? null))
      entry.kafka = kafka
      entry.error = null
      entry.clusterId = await kafka.clusterId()
      entry.topicCount = (await kafka.describeTopics()).length
      return
    }
    const cluster = await EmbeddedCluster.open(this.clusterDir(definition.name), {
      name: definition.name,
      brokers: definition.brokers,
      config: { ...definition.config, tickIntervalMs: TICK_INTERVAL_MS },
    })
    entry.cluster = cluster
    entry.error = null
    entry.clusterId = await cluster.clusterId()
    entry.topicCount = (await cluster.describeTopics()).length
  }

  private async saveDefinitions(): Promise<void> {
    const clusters = [...this.clusters.values()].map((entry) => entry.definition)
    await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, clusters }, null, 1)}\n`, 0o644)
  }

  private publish(event: ClusterEvent): void {
    this.options.publish?.(event)
  }

  /** Publishes a `cluster` event for a change made outside the registry (topic administration). */
  announce(event: ClusterEvent): void {
    this.publish(event)
  }

  private entry(name: string): OpenCluster {
    const entry = this.clusters.get(name)
    if (!entry) throw new ApiError('NOT_FOUND', `cluster ${JSON.stringify(name)} does not exist`, { details: { cluster: name } })
    return entry
  }

  /**
   * The embedded cluster behind a name (for the engine and the routes); NOT_FOUND or SOURCE_UNAVAILABLE, and
   * VALIDATION_FAILED for a Kafka cluster, which offers only what `kafka()` and `ports()` give.
   */
  embedded(name: string): EmbeddedCluster {
    const entry = this.entry(name)
    if (entry.definition.kind === 'kafka') {
      throw new ApiError('VALIDATION_FAILED', `cluster ${name} is a Kafka cluster: this operation is offered on embedded clusters only`, { details: { cluster: name, kind: 'kafka' } })
    }
    if (entry.cluster === null) throw new ApiError('SOURCE_UNAVAILABLE', `cluster ${name} could not be opened: ${entry.error ?? 'unknown error'}`)
    return entry.cluster
  }

  /** The Kafka cluster behind a name, or null for an embedded one; SOURCE_UNAVAILABLE while it cannot be reached. */
  private kafka(name: string): KafkaCluster | null {
    const entry = this.entry(name)
    if (entry.definition.kind !== 'kafka') return null
    if (!entry.kafka) throw new ApiError('SOURCE_UNAVAILABLE', `cluster ${name} could not be opened: ${entry.error ?? 'unknown error'}`)
    return entry.kafka
  }

  /** Topic administration of a cluster of either kind (server/cluster/topic-admin.ts). */
  topicAdministration(name: string): Pick<EmbeddedCluster, 'describeTopic' | 'deleteTopic' | 'createPartitions' | 'deleteRecords' | 'updateTopicConfigs'> {
    const kafka = this.kafka(name)
    if (!kafka) return this.embedded(name)
    return {
      describeTopic: (topic) => kafka.describeTopic(topic),
      deleteTopic: (topic) => kafka.admin.deleteTopic(topic),
      createPartitions: (topic, count) => kafka.admin.createPartitions(topic, count),
      deleteRecords: (tp, beforeOffset) => kafka.admin.deleteRecords(tp, beforeOffset),
      updateTopicConfigs: (topic, change) => kafka.admin.updateTopicConfigs(topic, change),
    }
  }

  /**
   * What a Kafka destination emulates (kafka/emulation-notes.ts), for a mirror into it or one of its mirror
   * partitions; null for an embedded cluster (a native destination) or one not open.
   */
  emulation(name: string, tp?: TopicPartition): Emulation | null {
    const entry = this.clusters.get(name)
    if (entry?.definition.kind !== 'kafka' || !entry.kafka) return null
    return entry.kafka.host.emulationNotes(tp)
  }

  /** The engine's view of a cluster of either kind: the source and destination ports. */
  ports(name: string): { source: SourceCluster; host: MirrorHost } {
    const kafka = this.kafka(name)
    if (kafka) return { source: kafka.source, host: kafka.host }
    const embedded = this.embedded(name)
    return { source: embedded, host: embedded }
  }

  names(): string[] {
    return [...this.clusters.keys()]
  }

  private async view(entry: OpenCluster): Promise<Cluster> {
    const { cluster, definition } = entry
    if (definition.kind === 'kafka') {
      const kafka = entry.kafka ?? null
      let brokers: Cluster['brokers'] = []
      if (kafka) {
        brokers = await kafka.brokers()
        entry.topicCount = await kafka.describeTopics().then((topics) => topics.length, () => entry.topicCount)
      }
      return {
        name: definition.name,
        kind: 'kafka',
        clusterId: entry.clusterId,
        brokers,
        topicCount: entry.topicCount,
        status: kafka === null ? 'unavailable' : 'ok',
        ...(entry.error === null ? {} : { error: entry.error }),
      }
    }
    if (cluster !== null) {
      try {
        entry.topicCount = (await cluster.describeTopics()).length
      } catch {
        // Every broker is stopped: the last known count is still the best answer.
      }
    }
    return {
      name: definition.name,
      kind: definition.kind,
      clusterId: entry.clusterId,
      brokers: cluster?.brokers() ?? [],
      topicCount: entry.topicCount,
      status: cluster === null ? 'unavailable' : 'ok',
      ...(entry.error === null ? {} : { error: entry.error }),
    }
  }

  async list(): Promise<Cluster[]> {
    return Promise.all([...this.clusters.values()].map((entry) => this.view(entry)))
  }

  async describe(name: string): Promise<Cluster> {
    return this.view(this.entry(name))
  }

  create(request: CreateClusterRequest): Promise<Cluster> {
    const task = this.creating.then(() => this.createNow(request))
    this.creating = task.catch(() => undefined)
    return task
  }

  private async createNow(request: CreateClusterRequest): Promise<Cluster> {
    if (this.closed) throw new ApiError('SOURCE_UNAVAILABLE', 'the server is shutting down')
    if (this.clusters.has(request.name)) {
      throw new ApiError('CONFLICT', `cluster ${JSON.stringify(request.name)} already exists`, { details: { cluster: request.name } })
    }
    if (request.kind === 'kafka') return this.createKafkaNow(request)
    const definition: ClusterDefinition = {
      name: request.name,
      kind: 'embedded',
      brokers: request.brokers ?? 3,
      config: {
        ...(request.firstProducerId === undefined ? {} : { firstProducerId: request.firstProducerId }),
        ...(request.transactionTimeoutMs === undefined ? {} : { transactionTimeoutMs: request.transactionTimeoutMs }),
      },
      createdAt: this.now(),
    }
    const entry: OpenCluster = { definition, cluster: null, error: null, clusterId: '', topicCount: 0 }
    const dir = this.clusterDir(definition.name)
    // No definition names this directory, so it is what a failed creation left behind.
    await rm(dir, { recursive: true, force: true })
    await mkdir(path.dirname(dir), { recursive: true })
    this.clusters.set(definition.name, entry)
    try {
      await this.saveDefinitions()
      await this.start(entry)
    } catch (error) {
      this.clusters.delete(definition.name)
      await entry.cluster?.close().catch(() => undefined)
      await this.saveDefinitions().catch(() => undefined)
      await rm(dir, { recursive: true, force: true }).catch(() => undefined)
      throw error
    }
    this.publish({ cluster: definition.name, change: 'created' })
    return this.view(entry)
  }

  /**
   * A Kafka cluster is saved only once it answered: connected (TLS, SASL), told its cluster id and brokers.
   * A refusal is CLUSTER_CONNECTION_FAILED with the broker's reason (never the secrets), and nothing is written.
   */
  private async createKafkaNow(request: Extract<CreateClusterRequest, { kind: 'kafka' }>): Promise<Cluster> {
    const { definition, secrets } = splitKafkaRequest(request, this.now())
    const allowlist = this.options.kafkaAllowedHosts ?? null
    const refused = allowlist?.refused(definition.bootstrapServers) ?? []
    if (refused.length > 0) {
      throw new ApiError('VALIDATION_FAILED', `${refused.join(', ')} not allowed: the server connects only to MIRRORBOARD_KAFKA_ALLOWED_HOSTS (${allowlist?.source})`, {
        details: { issues: [{ path: 'body.bootstrapServers', message: 'not in MIRRORBOARD_KAFKA_ALLOWED_HOSTS' }] },
      })
    }
    let kafka: KafkaCluster
    const started = Date.now()
    try {
      kafka = await KafkaCluster.open(definition.name, connectionConfig(definition, secrets, allowlist), { quick: true })
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      const { message, specific } = connectionFailureReason(definition.bootstrapServers, reason)
      if (!specific) {
        this.options.log.warn('a new Kafka cluster did not connect', { cluster: definition.name, reason })
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, CONNECTION_FAILURE_MIN_MS - (Date.now() - started))))
      }
      throw new ApiError('CLUSTER_CONNECTION_FAILED', message, { details: { cluster: definition.name, bootstrapServers: definition.bootstrapServers } })
    }
    const entry: OpenCluster = { definition, cluster: null, kafka, error: null, clusterId: await kafka.clusterId(), topicCount: 0 }
    this.clusters.set(definition.name, entry)
    try {
      await writeKafkaSecrets(this.options.dataDir, definition.name, secrets)
      await this.saveDefinitions()
    } catch (error) {
      this.clusters.delete(definition.name)
      await kafka.close().catch(() => undefined)
      await this.saveDefinitions().catch(() => undefined)
      await removeKafkaSecrets(this.options.dataDir, definition.name).catch(() => undefined)
      throw error
    }
    this.publish({ cluster: definition.name, change: 'created' })
    return this.view(entry)
  }

  /**
   * Removes a cluster: closes it, drops its definition, then its data directory. Runs in the creation queue, so a
   * creation of the same name cannot interleave. `stillInUse` is asked inside the queue (a mirror that uses the
   * cluster refuses the removal with CONFLICT); the definition goes first, so a crash leaves only a directory
   * that the next creation of the name clears.
   */
  remove(name: string, stillInUse: () => string | null): Promise<void> {
    const task = this.creating.then(() => this.removeNow(name, stillInUse))
    this.creating = task.catch(() => undefined)
    return task
  }

  private async removeNow(name: string, stillInUse: () => string | null): Promise<void> {
    if (this.closed) throw new ApiError('SOURCE_UNAVAILABLE', 'the server is shutting down')
    const entry = this.entry(name)
    const reason = stillInUse()
    if (reason !== null) throw new ApiError('CONFLICT', reason, { details: { cluster: name } })
    this.clusters.delete(name)
    await this.saveDefinitions()
    await entry.cluster?.close().catch((error: unknown) => this.options.log.error('could not close a removed cluster', { cluster: name, error }))
    await entry.kafka?.close().catch((error: unknown) => this.options.log.error('could not close a removed cluster', { cluster: name, error }))
    await removeKafkaSecrets(this.options.dataDir, name)
    await rm(this.clusterDir(name), { recursive: true, force: true })
    this.publish({ cluster: name, change: 'deleted' })
  }

  // TOPICS AND RECORDS

  async listTopics(cluster: string): Promise<Topic[]> {
    return (await (this.kafka(cluster) ?? this.embedded(cluster)).describeTopics()).map(toTopic)
  }

  async createTopic(cluster: string, request: CreateTopicRequest): Promise<Topic> {
    const created = await (this.kafka(cluster)?.admin ?? this.embedded(cluster)).createTopic(request)
    this.entry(cluster).topicCount += 1
    this.publish({ cluster, change: 'topicCreated', topic: created.name })
    return toTopic(created)
  }

  async listPartitions(cluster: string, topic: string): Promise<PartitionInfo[]> {
    return (await (this.kafka(cluster) ?? this.embedded(cluster)).describeTopic(topic)).partitions
  }

  async readRecords(cluster: string, topic: string, partition: number, query: RecordsQuery): Promise<RecordsResponse> {
    const page = await (this.kafka(cluster) ?? this.embedded(cluster)).readRecords(topic, partition, query)
    const last = page.records.at(-1)
    const bound = query.isolation === 'read_committed' ? page.lastStableOffset : page.highWatermark
    return {
      ...page,
      records: page.records.map(toRecordEntry),
      // A full page ends at its last record; a short one reached what this isolation level may read.
      nextOffset: page.records.length >= query.limit && last ? last.offset + 1 : Math.max(query.fromOffset, bound),
    }
  }

  async produce(cluster: string, topic: string, request: ProduceRequest): Promise<ProduceResponse> {
    const result = await (this.kafka(cluster)?.admin ?? this.embedded(cluster)).produce(topic, {
      ...(request.partition === undefined ? {} : { partition: request.partition }),
      idempotent: request.idempotent ?? true,
      records: toProduceRecords(request.records),
    })
    this.publish({ cluster, change: 'recordsAppended', topic, partitions: [...new Set(result.records.map((r) => r.partition))] })
    return result
  }

  // TRANSACTIONAL PRODUCERS

  async createProducer(cluster: string, transactionalId: string): Promise<ProducerCreated> {
    const producer = await this.embedded(cluster).createTransactionalProducer(transactionalId)
    return { producer: producer.handle, transactionalId, producerId: producer.producerId, producerEpoch: producer.producerEpoch }
  }

  async producerSend(cluster: string, handle: string, request: ProducerSendRequest): Promise<ProduceResponse> {
    const producer = this.embedded(cluster).transactionalProducer(handle)
    const result = await producer.send(request.topic, {
      ...(request.partition === undefined ? {} : { partition: request.partition }),
      records: toProduceRecords(request.records),
    })
    this.publish({ cluster, change: 'recordsAppended', topic: request.topic, partitions: [...new Set(result.records.map((r) => r.partition))] })
    return result
  }

  async endTransaction(cluster: string, handle: string, result: 'COMMIT' | 'ABORT'): Promise<void> {
    const producer = this.embedded(cluster).transactionalProducer(handle)
    await (result === 'COMMIT' ? producer.commit() : producer.abort())
    this.publish({ cluster, change: result === 'COMMIT' ? 'transactionCommitted' : 'transactionAborted' })
  }

  async closeProducer(cluster: string, handle: string): Promise<void> {
    this.embedded(cluster).transactionalProducer(handle).close()
    this.publish({ cluster, change: 'producerClosed' })
  }

  // CONSUMER GROUPS

  async listGroups(cluster: string): Promise<Group[]> {
    const kafka = this.kafka(cluster)
    if (kafka) return kafka.describeGroups()
    return (await this.embedded(cluster).describeGroups()).map((group) => ({
      groupId: group.groupId,
      state: group.state,
      members: group.members,
      offsets: group.offsets.map(({ topic, partition, offset, leaderEpoch }) => ({ topic, partition, offset, leaderEpoch })),
    }))
  }

  async commitGroupOffsets(cluster: string, groupId: string, offsets: readonly GroupOffset[]): Promise<void> {
    await (this.kafka(cluster)?.admin ?? this.embedded(cluster)).commitOffsets(
      groupId,
      offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset })),
    )
    this.publish({ cluster, change: 'groupOffsetsCommitted' })
  }

  // METRICS

  /** Cluster-level gauges; the engine adds the mirror families of API.md through its own collector. */
  async collectMetrics(): Promise<MetricFamily[]> {
    const family = (name: string, help: string): MetricFamily => ({ name, help, type: 'gauge', samples: [] })
    const up = family('mirrorboard_cluster_up', 'Whether the cluster is open (1) or could not be opened (0).')
    const brokers = family('mirrorboard_cluster_brokers', 'Brokers of the cluster by state.')
    const topics = family('mirrorboard_cluster_topics', 'Topics of the cluster (internal topics excluded).')
    const logEnd = family('mirrorboard_partition_log_end_offset', 'Log end offset of the partition leader.')
    const highWatermark = family('mirrorboard_partition_high_watermark', 'High watermark of the partition.')
    const logStart = family('mirrorboard_partition_log_start_offset', 'Log start offset of the partition.')
    const inSync = family('mirrorboard_partition_in_sync_replicas', 'Replicas in the ISR of the partition.')
    const replicas = family('mirrorboard_partition_replicas', 'Replicas assigned to the partition.')
    for (const [name, entry] of this.clusters) {
      up.samples.push({ labels: { cluster: name }, value: entry.cluster === null && !entry.kafka ? 0 : 1 })
      // A Kafka cluster's own metrics are its brokers' (JMX); only its reachability is ours to report.
      if (entry.cluster === null) continue
      const states = entry.cluster.brokers()
      brokers.samples.push(
        { labels: { cluster: name, state: 'alive' }, value: states.filter((b) => b.alive).length },
        { labels: { cluster: name, state: 'stopped' }, value: states.filter((b) => !b.alive).length },
      )
      let descriptions: TopicDescription[]
      try {
        descriptions = await entry.cluster.describeTopics()
      } catch {
        continue
      }
      topics.samples.push({ labels: { cluster: name }, value: descriptions.length })
      for (const topic of descriptions) {
        for (const p of topic.partitions) {
          const labels = { cluster: name, topic: topic.name, partition: p.partition }
          logEnd.samples.push({ labels, value: p.logEndOffset })
          highWatermark.samples.push({ labels, value: p.highWatermark })
          logStart.samples.push({ labels, value: p.logStartOffset })
          inSync.samples.push({ labels, value: p.isr.length })
          replicas.samples.push({ labels, value: p.replicas.length })
        }
      }
    }
    const count: MetricFamily = { name: 'mirrorboard_clusters', help: 'Clusters the app manages.', type: 'gauge', samples: [{ value: this.clusters.size }] }
    return [count, up, brokers, topics, logEnd, highWatermark, logStart, inSync, replicas]
  }

  /** Closes every cluster (logs flushed); the registry refuses new clusters afterwards. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.creating
    const results = await Promise.allSettled([...this.clusters.values()].map((entry) => entry.cluster?.close() ?? entry.kafka?.close()))
    for (const result of results) if (result.status === 'rejected') this.options.log.error('could not close a cluster', { error: result.reason })
  }
}
