import 'server-only'
import { Partitioners, type Admin, type Kafka, type Producer } from 'kafkajs'
import { ClusterError } from '../errors'
import type { CreateTopicSpec } from '../embedded/topics'
import type { ProduceOptions } from '../embedded/produce-path'
import type { ProduceResult } from '../embedded/producers'
import type { TopicDescription, TopicPartition } from '../ports'
import { toKafkaClusterError } from './connection'
import { createTopicsAwaitingLeaders } from './create-topics'

/**
 * Topic administration, test produce and group offset commits on a real Kafka cluster through kafkajs's admin
 * and producers, with the embedded cluster's method shapes so the registry and the topic routes serve either.
 * Kafka decides: a refusal carries the broker's error (TOPIC_ALREADY_EXISTS → CONFLICT, INVALID_* → 400).
 * Deviations: a topic id cannot be chosen (CreateTopics v3 has none), and configs are replaced through
 * AlterConfigs (kafkajs has no incremental variant), computed from the topic's current dynamic configs.
 */
/** kafkajs takes headers as an object: a repeated key becomes an array, in order. */
function headersOf(headers: Array<{ key: string; value: string | Uint8Array | null }>): Record<string, Array<string | Buffer>> {
  const out: Record<string, Array<string | Buffer>> = {}
  for (const { key, value } of headers) (out[key] ??= []).push(value === null ? '' : typeof value === 'string' ? value : Buffer.from(value))
  return out
}

/** What this server refuses on a mirror topic; other clients are refused by ACL where an authorizer runs, else detected (write-deny-acls.ts). */
/** How long a topic config change may take to show on the broker that answers describeConfigs. */
const CONFIG_VISIBLE_WITHIN_MS = 5_000

function sameConfigs(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key])
}

function readOnlyError(description: TopicDescription): ClusterError {
  return new ClusterError('TOPIC_READ_ONLY', `topic ${description.name} is the read-only destination of mirror ${description.mirror?.name ?? '(unknown)'}`, {
    details: { topic: description.name, mirror: description.mirror?.name ?? null },
  })
}

export class KafkaTopicAdmin {
  private producers: { idempotent?: Producer; plain?: Producer } = {}

  constructor(
    private readonly admin: Admin,
    private readonly client: (suffix: string) => Kafka,
    private readonly describe: (topic: string) => Promise<TopicDescription>,
  ) {}

  private async run<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action()
    } catch (error) {
      // kafkajs wraps per-topic and per-partition failures (createTopics, deleteTopics, deleteTopicRecords) in an
      // aggregate holding the broker's error.
      const aggregate = error as { errors?: unknown[]; partitions?: Array<{ error?: unknown }>; cause?: unknown }
      const inner = aggregate.errors?.[0] ?? aggregate.partitions?.find((p) => p.error !== undefined)?.error ?? aggregate.cause
      throw toKafkaClusterError(typeof inner === 'object' && inner !== null && 'type' in inner ? inner : error, what)
    }
  }

  async createTopic(spec: CreateTopicSpec): Promise<TopicDescription> {
    if (spec.topicId !== undefined) throw new ClusterError('VALIDATION_FAILED', 'a Kafka cluster chooses its topic ids: topicId cannot be given')
    const created = await this.run(`create topic ${spec.name}`, () =>
      createTopicsAwaitingLeaders(
        this.admin,
        {
          topics: [
            {
              topic: spec.name,
              numPartitions: spec.partitions,
              replicationFactor: spec.replicationFactor ?? -1,
              configEntries: Object.entries(spec.configs ?? {}).map(([name, value]) => ({ name, value })),
            },
          ],
        },
        // Our own Metadata v12 (the view every other read of the topic uses).
        { led: async () => (await this.describe(spec.name)).partitions.every((partition) => partition.leader >= 0) },
      ),
    )
    if (!created) throw new ClusterError('CONFLICT', `topic ${JSON.stringify(spec.name)} already exists`, { details: { topic: spec.name } })
    return this.describe(spec.name)
  }

  async deleteTopic(topic: string): Promise<void> {
    await this.describe(topic)
    await this.run(`delete topic ${topic}`, () => this.admin.deleteTopics({ topics: [topic], timeout: 10_000 }))
  }

  /**
   * Deletes the topic and creates it again, empty, with the same partition count, replication factor and
   * configs (a failback rebuild: no client can truncate a Kafka log). The controller accepts the name again
   * only once the deletion is done, so the create is retried until then.
   */
  async recreateTopic(topic: string): Promise<TopicDescription> {
    const before = await this.describe(topic)
    await this.run(`delete topic ${topic}`, () => this.admin.deleteTopics({ topics: [topic], timeout: 10_000 }))
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        return await this.createTopic({ name: topic, partitions: before.partitions.length, replicationFactor: before.replicationFactor, configs: before.configs })
      } catch (error) {
        if (!(error instanceof ClusterError && error.code === 'CONFLICT') || Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
  }

  async createPartitions(topic: string, totalCount: number): Promise<TopicDescription> {
    const before = await this.describe(topic)
    if (totalCount <= before.partitions.length) {
      throw new ClusterError('VALIDATION_FAILED', `${topic} has ${before.partitions.length} partitions: the count can only grow`)
    }
    await this.run(`add partitions to ${topic}`, () => this.admin.createPartitions({ topicPartitions: [{ topic, count: totalCount }], validateOnly: false }))
    return this.describe(topic)
  }

  async updateTopicConfigs(topic: string, change: { set?: Record<string, string>; delete?: string[] }): Promise<Record<string, string>> {
    const current = (await this.describe(topic)).configs
    const next = { ...current, ...change.set }
    for (const key of change.delete ?? []) delete next[key]
    await this.run(`alter configs of ${topic}`, () =>
      this.admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: topic, configEntries: Object.entries(next).map(([name, value]) => ({ name, value })) }] }),
    )
    // The change reaches each broker through the metadata log: the broker asked next may not have applied it yet
    // (CI saw the old configs answered once). Read until it shows, for a few seconds at most.
    const deadline = Date.now() + CONFIG_VISIBLE_WITHIN_MS
    for (;;) {
      const configs = (await this.describe(topic)).configs
      if (sameConfigs(configs, next) || Date.now() > deadline) return configs
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /** Refused (TOPIC_READ_ONLY) on a mirror topic, except on the mirror path (`bypassReadOnly`). */
  async deleteRecords(tp: TopicPartition, beforeOffset: number, options: { bypassReadOnly?: true } = {}): Promise<{ logStartOffset: number }> {
    const description = await this.describe(tp.topic)
    if (description.readOnly && !options.bypassReadOnly) throw readOnlyError(description)
    const partition = description.partitions.find((p) => p.partition === tp.partition)
    if (!partition) throw new ClusterError('NOT_FOUND', `${tp.topic}-${tp.partition} does not exist`)
    if (beforeOffset > partition.highWatermark) {
      throw new ClusterError('OFFSET_OUT_OF_RANGE', `offset ${beforeOffset} is beyond the high watermark ${partition.highWatermark}`, { details: { logStartOffset: partition.logStartOffset, logEndOffset: partition.logEndOffset } })
    }
    await this.run(`delete records of ${tp.topic}-${tp.partition}`, async () => {
      // kafkajs's admin finds the leader in metadata it must have loaded for this topic first.
      await this.admin.fetchTopicMetadata({ topics: [tp.topic] })
      await this.admin.deleteTopicRecords({ topic: tp.topic, partitions: [{ partition: tp.partition, offset: String(beforeOffset) }] })
    })
    const after = (await this.describe(tp.topic)).partitions.find((p) => p.partition === tp.partition)
    return { logStartOffset: after?.logStartOffset ?? beforeOffset }
  }

  private async producer(idempotent: boolean): Promise<Producer> {
    const key = idempotent ? 'idempotent' : 'plain'
    let producer = this.producers[key]
    if (!producer) {
      producer = this.client(`producer-${key}`).producer(idempotent ? { idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false } : { allowAutoTopicCreation: false })
      await this.run('connect a producer', () => producer!.connect())
      this.producers[key] = producer
    }
    return producer
  }

  /**
   * One batch per partition; offsets from each partition's base offset, in input order. Without a partition,
   * keyed records go where Kafka's default partitioner (murmur2 of the key) puts them, and the unkeyed records of
   * one call stick to one partition, as Kafka's sticky partitioner batches them.
   */
  async produce(topic: string, options: ProduceOptions): Promise<ProduceResult> {
    const description = await this.describe(topic)
    if (description.readOnly) throw readOnlyError(description)
    if (options.partition !== undefined && !description.partitions.some((p) => p.partition === options.partition)) {
      throw new ClusterError('NOT_FOUND', `${topic}-${options.partition} does not exist`)
    }
    const producer = await this.producer(options.idempotent ?? true)
    const toBuffer = (value: string | Uint8Array | null | undefined) => (value === undefined || value === null ? null : typeof value === 'string' ? value : Buffer.from(value))
    const partitioner = Partitioners.DefaultPartitioner()
    const partitionMetadata = description.partitions.map((p) => ({ partitionId: p.partition, leader: p.leader, partitionErrorCode: 0, replicas: p.replicas, isr: p.isr }))
    const sticky = description.partitions[Math.floor(Math.random() * description.partitions.length)]!.partition
    const messages = options.records.map((record) => {
      const key = toBuffer(record.key)
      const value = toBuffer(record.value)
      const partition = options.partition ?? (key === null ? sticky : partitioner({ topic, partitionMetadata, message: { key, value } }))
      return {
        partition,
        key,
        value,
        ...(record.timestamp === undefined ? {} : { timestamp: String(record.timestamp) }),
        ...(record.headers === undefined ? {} : { headers: headersOf(record.headers) }),
      }
    })
    const answers = await this.run(`produce to ${topic}`, () => producer.send({ topic, acks: -1, messages }))
    const next = new Map(answers.map((answer) => [answer.partition, Number(answer.baseOffset ?? answer.offset)]))
    return {
      records: messages.map(({ partition }) => {
        const offset = next.get(partition)
        if (offset === undefined) throw new ClusterError('SOURCE_UNAVAILABLE', `the broker did not acknowledge ${topic}-${partition}`)
        next.set(partition, offset + 1)
        return { partition, offset }
      }),
    }
  }

  async commitOffsets(groupId: string, offsets: Array<TopicPartition & { offset: number }>): Promise<void> {
    const byTopic = new Map<string, Array<{ partition: number; offset: string }>>()
    for (const { topic, partition, offset } of offsets) byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset: String(offset) }])
    for (const [topic, partitions] of byTopic) await this.run(`commit offsets of ${groupId}`, () => this.admin.setOffsets({ groupId, topic, partitions }))
  }

  async close(): Promise<void> {
    await Promise.allSettled(Object.values(this.producers).map((p) => p.disconnect()))
  }
}
