import { z } from 'zod'
import { Name, NonNegativeInt, PartitionIndex, printableId } from './common'

/** Kafka accepts any non-empty group id; control characters are refused so ids stay printable. */
export const GroupId = printableId(255)

export const GroupOffset = z.object({
  topic: Name,
  partition: PartitionIndex,
  offset: NonNegativeInt,
  leaderEpoch: z.number().int().nullable().optional(),
})
export type GroupOffset = z.infer<typeof GroupOffset>

export const Group = z.object({
  groupId: z.string(),
  /** Kafka's consumer group states: Stable (members present), Empty, ... */
  state: z.string(),
  /** Member ids of the active members. */
  members: z.array(z.string()),
  offsets: z.array(GroupOffset),
})
export type Group = z.infer<typeof Group>

export const GroupList = z.object({ groups: z.array(Group) })
export type GroupList = z.infer<typeof GroupList>

export const GroupParams = z.object({ cluster: Name, group: GroupId })

export const CommitGroupOffsetsRequest = z.strictObject({
  offsets: z
    .array(z.strictObject({ topic: Name, partition: PartitionIndex, offset: NonNegativeInt }))
    .min(1)
    .max(10_000),
})
export type CommitGroupOffsetsRequest = z.infer<typeof CommitGroupOffsetsRequest>
