import 'server-only'
import type { Cluster, CreateClusterRequest } from '@/lib/api/clusters'
import type { Group, GroupOffset } from '@/lib/api/groups'
import type { ProduceRequest, ProduceResponse, ProducerCreated, ProducerSendRequest, RecordEntry, RecordInput, RecordsQuery, RecordsResponse } from '@/lib/api/records'
import type { CreateTopicRequest, DeleteRecordsRequest, PartitionInfo, PatchTopicConfigsRequest, Topic } from '@/lib/api/topics'
import type { ProduceRecord } from '@/server/cluster/embedded/producers'
import type { RecordView } from '@/server/cluster/embedded/records-view'
import type { TopicDescription } from '@/server/cluster/ports'
import type { ClusterRegistry, ClusterStatus } from '@/server/cluster/registry'

/**
 * The cluster endpoints of API.md ("Clusters", "Topics", "Records", "Producers", "Groups", topic
 * administration) over the registry: requests become calls on a cluster of either kind
 * (`ClusterRegistry.client`), answers become the shapes of lib/api, and every change made through here is
 * announced as a `cluster` event. Errors are the clusters' own (ClusterError); server/http/problem.ts gives
 * each code its status. The cluster enforces the read-only rule of mirror topics (TOPIC_READ_ONLY until STOPPED,
 * KIP-1279.md §11 #8/#9); topic configs stay alterable on them, and a change is passed to the engine, which acts
 * on the configs it watches at once.
 */

/** What the cluster endpoints need of the engine (server/engine/engine.ts). */
export interface MirrorsOfClusters {
  listMirrors(): ReadonlyArray<{ name: string; sourceCluster: string; destinationCluster: string }>
  destinationTopicConfigsChanged(cluster: string, topic: string): Promise<void>
}

export function toCluster(status: ClusterStatus): Cluster {
  return {
    name: status.name,
    kind: status.kind,
    clusterId: status.clusterId,
    brokers: status.brokers,
    topicCount: status.topicCount,
    ...(status.bootstrapServers === undefined ? {} : { bootstrapServers: status.bootstrapServers }),
    status: status.open ? 'ok' : 'unavailable',
    ...(status.error === null ? {} : { error: status.error }),
  }
}

export function toTopic(description: TopicDescription): Topic {
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

const partitionsOf = (result: ProduceResponse) => [...new Set(result.records.map((record) => record.partition))]

export class ClusterApi {
  constructor(
    private readonly clusters: ClusterRegistry,
    private readonly mirrors: MirrorsOfClusters,
  ) {}

  // CLUSTERS

  /** Whether the app manages a cluster of that name (open or not). */
  has(name: string): boolean {
    return this.clusters.names().includes(name)
  }

  async list(): Promise<Cluster[]> {
    return (await this.clusters.list()).map(toCluster)
  }

  async describe(name: string): Promise<Cluster> {
    return toCluster(await this.clusters.describe(name))
  }

  async create(request: CreateClusterRequest): Promise<Cluster> {
    return toCluster(await this.clusters.create(request))
  }

  /**
   * DELETE /clusters/{cluster}: a cluster a mirror still reads from or writes to is refused, naming the mirrors,
   * since removing it would fail every partition of them (a STOPPED mirror still lives in the destination's
   * `__mirror_state`, so it counts too: delete the mirror first).
   */
  remove(name: string): Promise<void> {
    return this.clusters.remove(name, () => {
      const users = this.mirrors.listMirrors().filter((mirror) => mirror.sourceCluster === name || mirror.destinationCluster === name)
      if (users.length === 0) return null
      const names = users.map((mirror) => mirror.name).join(', ')
      return `cluster ${name} is used by ${users.length === 1 ? 'mirror' : 'mirrors'} ${names}; delete ${users.length === 1 ? 'it' : 'them'} first`
    })
  }

  // TOPICS

  async listTopics(cluster: string): Promise<Topic[]> {
    return (await this.clusters.client(cluster).describeTopics()).map(toTopic)
  }

  async createTopic(cluster: string, request: CreateTopicRequest): Promise<Topic> {
    const created = await this.clusters.client(cluster).createTopic(request)
    this.clusters.topicCreated(cluster)
    this.clusters.announce({ cluster, change: 'topicCreated', topic: created.name })
    return toTopic(created)
  }

  async listPartitions(cluster: string, topic: string): Promise<PartitionInfo[]> {
    return (await this.clusters.client(cluster).describeTopic(topic)).partitions
  }

  async deleteTopic(cluster: string, topic: string): Promise<void> {
    await this.clusters.client(cluster).deleteTopic(topic)
    this.clusters.announce({ cluster, change: 'topicDeleted', topic })
  }

  /** `count` is the new total; it must be larger than the current one. */
  async createPartitions(cluster: string, topic: string, count: number): Promise<Topic> {
    const client = this.clusters.client(cluster)
    const before = (await client.describeTopic(topic)).partitions.length
    const described = await client.createPartitions(topic, count)
    this.clusters.announce({ cluster, change: 'partitionsCreated', topic, partitions: described.partitions.slice(before).map((p) => p.partition) })
    return toTopic(described)
  }

  async deleteRecords(cluster: string, topic: string, partition: number, request: DeleteRecordsRequest): Promise<{ logStartOffset: number }> {
    const result = await this.clusters.client(cluster).deleteRecords({ topic, partition }, request.beforeOffset)
    this.clusters.announce({ cluster, change: 'recordsDeleted', topic, partitions: [partition] })
    return { logStartOffset: result.logStartOffset }
  }

  async configs(cluster: string, topic: string): Promise<{ configs: Record<string, string> }> {
    return { configs: (await this.clusters.client(cluster).describeTopic(topic)).configs }
  }

  async updateConfigs(cluster: string, topic: string, request: PatchTopicConfigsRequest): Promise<{ configs: Record<string, string> }> {
    const configs = await this.clusters.client(cluster).updateTopicConfigs(topic, {
      ...(request.set === undefined ? {} : { set: request.set }),
      ...(request.delete === undefined ? {} : { delete: request.delete }),
    })
    this.clusters.announce({ cluster, change: 'topicConfigsChanged', topic })
    await this.mirrors.destinationTopicConfigsChanged(cluster, topic)
    return { configs }
  }

  // RECORDS

  async readRecords(cluster: string, topic: string, partition: number, query: RecordsQuery): Promise<RecordsResponse> {
    const page = await this.clusters.client(cluster).readRecords(topic, partition, query)
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
    const result = await this.clusters.client(cluster).produce(topic, {
      ...(request.partition === undefined ? {} : { partition: request.partition }),
      idempotent: request.idempotent ?? true,
      records: toProduceRecords(request.records),
    })
    this.clusters.announce({ cluster, change: 'recordsAppended', topic, partitions: partitionsOf(result) })
    return result
  }

  // TRANSACTIONAL PRODUCERS (embedded clusters: VALIDATION_FAILED on a Kafka cluster)

  async createProducer(cluster: string, transactionalId: string): Promise<ProducerCreated> {
    const producer = await this.clusters.embedded(cluster).createTransactionalProducer(transactionalId)
    return { producer: producer.handle, transactionalId, producerId: producer.producerId, producerEpoch: producer.producerEpoch }
  }

  async producerSend(cluster: string, handle: string, request: ProducerSendRequest): Promise<ProduceResponse> {
    const producer = this.clusters.embedded(cluster).transactionalProducer(handle)
    const result = await producer.send(request.topic, {
      ...(request.partition === undefined ? {} : { partition: request.partition }),
      records: toProduceRecords(request.records),
    })
    this.clusters.announce({ cluster, change: 'recordsAppended', topic: request.topic, partitions: partitionsOf(result) })
    return result
  }

  async endTransaction(cluster: string, handle: string, result: 'COMMIT' | 'ABORT'): Promise<void> {
    const producer = this.clusters.embedded(cluster).transactionalProducer(handle)
    await (result === 'COMMIT' ? producer.commit() : producer.abort())
    this.clusters.announce({ cluster, change: result === 'COMMIT' ? 'transactionCommitted' : 'transactionAborted' })
  }

  async closeProducer(cluster: string, handle: string): Promise<void> {
    this.clusters.embedded(cluster).transactionalProducer(handle).close()
    this.clusters.announce({ cluster, change: 'producerClosed' })
  }

  // CONSUMER GROUPS

  listGroups(cluster: string): Promise<Group[]> {
    return this.clusters.client(cluster).describeGroups()
  }

  async commitGroupOffsets(cluster: string, groupId: string, offsets: readonly GroupOffset[]): Promise<void> {
    await this.clusters.client(cluster).commitOffsets(groupId, offsets)
    this.clusters.announce({ cluster, change: 'groupOffsetsCommitted' })
  }
}

/** The cluster API over the server's registry and engine. */
export function clusterApiOf(runtime: { clusters: ClusterRegistry; engine: MirrorsOfClusters }): ClusterApi {
  return new ClusterApi(runtime.clusters, runtime.engine)
}
