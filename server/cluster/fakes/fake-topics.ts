import 'server-only'
import { TopicPartitionMap, type TopicPartition } from '@/lib/mirror/topic-partition'
import { ClusterError } from '../errors'
import type { GroupOffsets, TopicDescription } from '../ports'
import { FakePartitionLog } from './fake-partition-log'

export interface FakeTopic {
  name: string
  topicId: string
  configs: Record<string, string>
  readOnly: boolean
  mirror: { name: string } | null
  logs: FakePartitionLog[]
}

/**
 * The metadata and logs one fake cluster holds, shared by its FakeSourceCluster and FakeMirrorHost faces (a
 * cluster is the source of one mirror and the destination of its failback). In memory, answered at once.
 */
export class FakeTopics {
  readonly topics = new Map<string, FakeTopic>()
  readonly groups = new Map<string, { hasActiveMembers: boolean; offsets: TopicPartitionMap<{ offset: number; leaderEpoch: number | null }> }>()
  private nextTopicId = 1

  constructor(readonly clusterName: string) {}

  create(spec: { name: string; partitions: number; topicId?: string; configs?: Record<string, string>; mirror?: string }): FakeTopic {
    if (this.topics.has(spec.name)) throw new ClusterError('CONFLICT', `topic ${spec.name} exists on ${this.clusterName}`)
    const topic: FakeTopic = {
      name: spec.name,
      topicId: spec.topicId ?? `${this.clusterName}-topic-${this.nextTopicId++}`,
      configs: { ...spec.configs },
      readOnly: spec.mirror !== undefined,
      mirror: spec.mirror === undefined ? null : { name: spec.mirror },
      logs: Array.from({ length: spec.partitions }, () => new FakePartitionLog()),
    }
    this.topics.set(spec.name, topic)
    return topic
  }

  topic(name: string): FakeTopic {
    const topic = this.topics.get(name)
    if (!topic) throw new ClusterError('NOT_FOUND', `topic ${name} does not exist on ${this.clusterName}`)
    return topic
  }

  log(topicPartition: TopicPartition): FakePartitionLog {
    const log = this.topic(topicPartition.topic).logs[topicPartition.partition]
    if (!log) throw new ClusterError('NOT_FOUND', `${topicPartition.topic}-${topicPartition.partition} does not exist on ${this.clusterName}`)
    return log
  }

  describe(names?: string[]): TopicDescription[] {
    const chosen = names === undefined ? [...this.topics.values()].filter((topic) => !topic.name.startsWith('__')) : names.flatMap((name) => this.topics.get(name) ?? [])
    return chosen.map((topic) => ({
      name: topic.name,
      topicId: topic.topicId,
      replicationFactor: 1,
      configs: { ...topic.configs },
      partitions: topic.logs.map((log, partition) => log.describe(partition)),
      readOnly: topic.readOnly,
      mirror: topic.mirror,
    }))
  }

  groupOffsets(): GroupOffsets[] {
    return [...this.groups].map(([groupId, group]) => ({
      groupId,
      hasActiveMembers: group.hasActiveMembers,
      offsets: [...group.offsets].map(([tp, committed]) => ({ ...tp, ...committed })),
    }))
  }

  commit(groupId: string, topicPartition: TopicPartition, offset: number, leaderEpoch: number | null): void {
    let group = this.groups.get(groupId)
    if (!group) this.groups.set(groupId, (group = { hasActiveMembers: false, offsets: new TopicPartitionMap() }))
    group.offsets.set(topicPartition, { offset, leaderEpoch })
  }
}
