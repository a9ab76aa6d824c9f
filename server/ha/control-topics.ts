import 'server-only'
import { ConfigResourceTypes, type Admin } from 'kafkajs'
import { createTopicsAwaitingLeaders } from '@/server/cluster/kafka/create-topics'

export interface ControlTopicSpec {
  name: string
  /** Compacted topics keep the latest record per key (config); the others keep everything for retention.ms. */
  compacted: boolean
}

/**
 * Creates the control topics that do not exist yet, with the replication the control cluster is configured for
 * (its brokers' `default.replication.factor` and `min.insync.replicas`, set explicitly on each topic so a later
 * change of the broker defaults does not weaken them). Existing topics are left as they are.
 */
export async function ensureControlTopics(admin: Admin, topics: readonly ControlTopicSpec[]): Promise<{ replicationFactor: number; minInsyncReplicas: number }> {
  const { brokers } = await admin.describeCluster()
  const broker = brokers[0]
  if (!broker) throw new Error('the control cluster answered with no brokers')
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.BROKER, name: String(broker.nodeId), configNames: ['default.replication.factor', 'min.insync.replicas'] }],
  })
  const entries = described.resources[0]?.configEntries ?? []
  const read = (name: string) => Number(entries.find((entry) => entry.configName === name)?.configValue ?? 1)
  const replicationFactor = Math.min(Math.max(1, read('default.replication.factor')), brokers.length)
  const minInsyncReplicas = Math.min(Math.max(1, read('min.insync.replicas')), replicationFactor)
  const existing = new Set(await admin.listTopics())
  const missing = topics.filter((topic) => !existing.has(topic.name))
  if (missing.length > 0) {
    try {
      await createTopicsAwaitingLeaders(admin, {
        topics: missing.map((topic) => ({
          topic: topic.name,
          numPartitions: 1,
          replicationFactor,
          configEntries: [
            { name: 'cleanup.policy', value: topic.compacted ? 'compact' : 'delete' },
            { name: 'min.insync.replicas', value: String(minInsyncReplicas) },
          ],
        })),
      })
    } catch (error) {
      // Another instance created them at the same moment.
      if ((error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw error
    }
  }
  return { replicationFactor, minInsyncReplicas }
}
