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

/** Kafka's topic ids are 16 random bytes in URL-safe base64 (22 characters); ours are made the same way. */
export const TopicId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 characters of A-Z, a-z, 0-9, "_" or "-"')

const ConfigKey = z.string().min(1).max(255)
const ConfigMap = z
  .record(z.string().min(1).max(255), z.string().max(4096))
  .refine((configs) => Object.keys(configs).length <= 100, 'at most 100 configs')

export const CreateTopicRequest = z.strictObject({
  name: Name,
  partitions: z.number().int().min(1).max(1000),
  replicationFactor: z.number().int().min(1).max(9).optional(),
  configs: ConfigMap.optional().describe("Kafka topic configs, e.g. { \"retention.ms\": \"86400000\" }."),
  topicId: TopicId.optional().describe("The topic id to give the topic (a mirror topic pre-created with its source's id); a new one by default."),
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

export const CreatePartitionsRequest = z.strictObject({
  count: z.number().int().min(1).max(1000).describe('The new total partition count: larger than the current one, at most 1000 (as at creation).'),
})
export type CreatePartitionsRequest = z.infer<typeof CreatePartitionsRequest>

export const DeleteRecordsRequest = z.strictObject({
  beforeOffset: NonNegativeInt.max(Number.MAX_SAFE_INTEGER).describe('Records below this offset are deleted (the log start offset moves up to it); at most the high watermark.'),
})
export type DeleteRecordsRequest = z.infer<typeof DeleteRecordsRequest>

export const DeleteRecordsResponse = z.object({ logStartOffset: NonNegativeInt })

export const TopicConfigs = z.object({ configs: z.record(z.string(), z.string()) })
export type TopicConfigs = z.infer<typeof TopicConfigs>

export const PatchTopicConfigsRequest = z
  .strictObject({
    set: ConfigMap.optional().describe('Dynamic configs to set (known Kafka topic configs only).'),
    delete: z.array(ConfigKey).max(100).optional().describe('Dynamic configs to remove (back to the default).'),
  })
  .refine((request) => Object.keys(request.set ?? {}).length + (request.delete?.length ?? 0) > 0, {
    message: 'set or delete at least one config',
    path: ['set'],
  })
  .refine((request) => !(request.delete ?? []).some((key) => Object.hasOwn(request.set ?? {}, key)), {
    message: 'a config cannot be both set and deleted',
    path: ['delete'],
  })
export type PatchTopicConfigsRequest = z.infer<typeof PatchTopicConfigsRequest>
