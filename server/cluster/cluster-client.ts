import 'server-only'
import type { Group } from '@/lib/api/groups'
import type { EmbeddedCluster } from './embedded/embedded-cluster'
import type { KafkaCluster } from './kafka/kafka-cluster'

/**
 * What the API does on a cluster of either kind (server/api/cluster-api.ts): topics, records, consumer group
 * offsets and topic administration, one shape over an embedded cluster and a Kafka cluster, so the API never
 * branches on the kind. Transactional producers handed out by handle exist on embedded clusters only
 * (`ClusterRegistry.embedded`).
 */
export interface ClusterClient
  extends Pick<EmbeddedCluster, 'describeTopics' | 'describeTopic' | 'createTopic' | 'readRecords' | 'produce' | 'deleteTopic' | 'createPartitions' | 'deleteRecords' | 'updateTopicConfigs'> {
  describeGroups(): Promise<Group[]>
  commitOffsets(groupId: string, offsets: ReadonlyArray<{ topic: string; partition: number; offset: number }>): Promise<void>
}

export function embeddedClient(cluster: EmbeddedCluster): ClusterClient {
  return {
    describeTopics: (topics) => cluster.describeTopics(topics),
    describeTopic: (topic) => cluster.describeTopic(topic),
    createTopic: (spec) => cluster.createTopic(spec),
    readRecords: (topic, partition, options) => cluster.readRecords(topic, partition, options),
    produce: (topic, options) => cluster.produce(topic, options),
    deleteTopic: (topic) => cluster.deleteTopic(topic),
    createPartitions: (topic, count) => cluster.createPartitions(topic, count),
    deleteRecords: (tp, beforeOffset) => cluster.deleteRecords(tp, beforeOffset),
    updateTopicConfigs: (topic, change) => cluster.updateTopicConfigs(topic, change),
    describeGroups: async () =>
      (await cluster.describeGroups()).map((group) => ({
        groupId: group.groupId,
        state: group.state,
        members: group.members,
        offsets: group.offsets.map(({ topic, partition, offset, leaderEpoch }) => ({ topic, partition, offset, leaderEpoch })),
      })),
    commitOffsets: (groupId, offsets) => cluster.commitOffsets(groupId, offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset }))),
  }
}

export function kafkaClient(kafka: KafkaCluster): ClusterClient {
  return {
    describeTopics: () => kafka.describeTopics(),
    describeTopic: (topic) => kafka.describeTopic(topic),
    createTopic: (spec) => kafka.admin.createTopic(spec),
    readRecords: (topic, partition, options = {}) => kafka.readRecords(topic, partition, { ...options, limit: options.limit ?? 100, isolation: options.isolation ?? 'read_uncommitted' }),
    produce: (topic, options) => kafka.admin.produce(topic, options),
    deleteTopic: (topic) => kafka.admin.deleteTopic(topic),
    createPartitions: (topic, count) => kafka.admin.createPartitions(topic, count),
    deleteRecords: (tp, beforeOffset) => kafka.admin.deleteRecords(tp, beforeOffset),
    updateTopicConfigs: (topic, change) => kafka.admin.updateTopicConfigs(topic, change),
    describeGroups: () => kafka.describeGroups(),
    commitOffsets: (groupId, offsets) => kafka.admin.commitOffsets(groupId, offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset }))),
  }
}
