import { z } from 'zod'
import { BrokerIdOrNone, Name, NonNegativeInt, PartitionIndex, PartitionString } from './common'

export const TopicMirrorRef = z.object({ name: Name, role: z.literal('destination') })

export const Topic = z.object({
  name: Name,
  topicId: z.string(),
  partitions: NonNegativeInt,
  replicationFactor: NonNegativeInt,
  readOnly: z.boolean(),
  mirror: TopicMirrorRef.nullable(),
  configs: z.record(z.string(), z.string()),
})
export type Topic = z.infer<typeof Topic>

export const TopicList = z.object({ topics: z.array(Topic) })
export type TopicList = z.infer<typeof TopicList>

const ConfigMap = z
  .record(z.string().min(1).max(255), z.string().max(4096))
  .refine((configs) => Object.keys(configs).length <= 100, 'at most 100 configs')

export const CreateTopicRequest = z.strictObject({
  name: Name,
  partitions: z.number().int().min(1).max(1000),
  replicationFactor: z.number().int().min(1).max(9).optional(),
  configs: ConfigMap.optional().describe("Kafka topic configs, e.g. { \"retention.ms\": \"86400000\" }."),
})
export type CreateTopicRequest = z.infer<typeof CreateTopicRequest>

export const TopicParams = z.object({ cluster: Name, topic: Name })
export const PartitionParams = z.object({ cluster: Name, topic: Name, partition: PartitionString })

export const PartitionInfo = z.object({
  partition: PartitionIndex,
  leader: BrokerIdOrNone,
  replicas: z.array(NonNegativeInt),
  isr: z.array(NonNegativeInt),
  leaderEpoch: z.number().int().min(-1),
  logStartOffset: NonNegativeInt,
  highWatermark: NonNegativeInt,
  lastStableOffset: NonNegativeInt,
  logEndOffset: NonNegativeInt,
})
export type PartitionInfo = z.infer<typeof PartitionInfo>

export const PartitionList = z.object({ partitions: z.array(PartitionInfo) })
export type PartitionList = z.infer<typeof PartitionList>
