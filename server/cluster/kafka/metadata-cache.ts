import 'server-only'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import type { KafkaConnection } from './connection'
import { errorName, metadataRequest, type MetadataPartition, type MetadataResponse, type MetadataTopic } from './protocol'

/**
 * Metadata v12 of a Kafka cluster (topic ids, leaders, leader epochs), cached per topic: fetches look their
 * leaders up here and refresh a topic when its leader answers NOT_LEADER_OR_FOLLOWER or a fenced epoch, which is
 * how leader moves are followed. Describing topics always asks the cluster.
 */

/** Internal topics of Kafka (`__consumer_offsets`, `__transaction_state`, ...) are not the operator's topics. */
function isOperatorTopic(topic: MetadataTopic): boolean {
  return !topic.isInternal && !topic.name.startsWith('__')
}

export class KafkaMetadata {
  private readonly byTopic = new Map<string, MetadataTopic>()
  private lastClusterId: string | null = null
  private lastBrokers: MetadataResponse['brokers'] = []

  constructor(private readonly connection: KafkaConnection) {}

  private async request(topics: string[] | null): Promise<MetadataResponse> {
    const response = await this.connection.send('any', metadataRequest(topics))
    this.lastClusterId = response.clusterId
    this.lastBrokers = response.brokers
    for (const topic of response.topics) {
      if (topic.errorCode === 0) this.byTopic.set(topic.name, topic)
      else this.byTopic.delete(topic.name)
    }
    if (topics === null) {
      const present = new Set(response.topics.map((t) => t.name))
      for (const name of [...this.byTopic.keys()]) if (!present.has(name)) this.byTopic.delete(name)
    }
    return response
  }

  async clusterId(): Promise<string> {
    if (this.lastClusterId === null) await this.request([])
    if (this.lastClusterId === null) throw new ClusterError('SOURCE_UNAVAILABLE', 'the cluster did not say its cluster id')
    return this.lastClusterId
  }

  async brokers(): Promise<MetadataResponse['brokers']> {
    await this.request([])
    return this.lastBrokers
  }

  /** Existing operator topics among `names` (every operator topic for null), sorted by name, partitions by index. */
  async topics(names: string[] | null): Promise<MetadataTopic[]> {
    if (names !== null && names.length === 0) return []
    const response = await this.request(names)
    const failed = response.topics.find((t) => t.errorCode !== 0 && errorName(t.errorCode) !== 'UNKNOWN_TOPIC_OR_PARTITION')
    if (failed) throw new ClusterError('SOURCE_UNAVAILABLE', `metadata of ${failed.name}: ${errorName(failed.errorCode)}`)
    return response.topics
      .filter((t) => t.errorCode === 0 && isOperatorTopic(t))
      .map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a.partition - b.partition) }))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  /** Makes sure every topic of `names` has been looked up once. */
  async ensure(names: string[]): Promise<void> {
    const missing = [...new Set(names)].filter((name) => !this.byTopic.has(name))
    if (missing.length > 0) await this.request(missing)
  }

  async refresh(names: string[]): Promise<void> {
    await this.request([...new Set(names)])
  }

  cached(tp: TopicPartition): MetadataPartition | undefined {
    return this.byTopic.get(tp.topic)?.partitions.find((p) => p.partition === tp.partition)
  }
}
