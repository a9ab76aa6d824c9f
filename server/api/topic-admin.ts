import 'server-only'
import type { DeleteRecordsRequest, PatchTopicConfigsRequest, Topic } from '@/lib/api/topics'
import type { TopicDescription } from '@/server/cluster/ports'
import type { ClusterRegistry } from '@/server/cluster/registry'

/**
 * Topic administration through the API (Kafka's DeleteTopics, CreatePartitions, DeleteRecords,
 * DescribeConfigs and IncrementalAlterConfigs). The cluster enforces the read-only rule of mirror topics
 * (TOPIC_READ_ONLY until STOPPED, KIP-1279.md §11 #8/#9); configs stay alterable on them, and a change is
 * passed to the engine, which acts on the configs it watches at once.
 */

export interface MirrorConfigWatcher {
  destinationTopicConfigsChanged(cluster: string, topic: string): Promise<void>
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

export class TopicAdmin {
  constructor(
    private readonly clusters: ClusterRegistry,
    private readonly watcher: MirrorConfigWatcher,
  ) {}

  async deleteTopic(cluster: string, topic: string): Promise<void> {
    await this.clusters.topicAdministration(cluster).deleteTopic(topic)
    this.clusters.announce({ cluster, change: 'topicDeleted', topic })
  }

  /** `count` is the new total; it must be larger than the current one. */
  async createPartitions(cluster: string, topic: string, count: number): Promise<Topic> {
    const admin = this.clusters.topicAdministration(cluster)
    const before = (await admin.describeTopic(topic)).partitions.length
    const described = await admin.createPartitions(topic, count)
    this.clusters.announce({ cluster, change: 'partitionsCreated', topic, partitions: described.partitions.slice(before).map((p) => p.partition) })
    return toTopic(described)
  }

  async deleteRecords(cluster: string, topic: string, partition: number, request: DeleteRecordsRequest): Promise<{ logStartOffset: number }> {
    const result = await this.clusters.topicAdministration(cluster).deleteRecords({ topic, partition }, request.beforeOffset)
    this.clusters.announce({ cluster, change: 'recordsDeleted', topic, partitions: [partition] })
    return { logStartOffset: result.logStartOffset }
  }

  async configs(cluster: string, topic: string): Promise<{ configs: Record<string, string> }> {
    return { configs: (await this.clusters.topicAdministration(cluster).describeTopic(topic)).configs }
  }

  async updateConfigs(cluster: string, topic: string, request: PatchTopicConfigsRequest): Promise<{ configs: Record<string, string> }> {
    const configs = await this.clusters.topicAdministration(cluster).updateTopicConfigs(topic, {
      ...(request.set === undefined ? {} : { set: request.set }),
      ...(request.delete === undefined ? {} : { delete: request.delete }),
    })
    this.clusters.announce({ cluster, change: 'topicConfigsChanged', topic })
    await this.watcher.destinationTopicConfigsChanged(cluster, topic)
    return { configs }
  }
}

export function topicAdminOf(runtime: { clusters: ClusterRegistry; engine: MirrorConfigWatcher }): TopicAdmin {
  return new TopicAdmin(runtime.clusters, runtime.engine)
}
