import { z } from 'zod'
import { MIRROR_PARTITION_STATES } from '@/lib/mirror/states'
import { IntegerString, Name, NonNegativeInt, PartitionIndex, PartitionString, RegexString, Timestamp, commaList } from './common'

/**
 * Mirrors (API.md "Mirrors"): a mirror is owned by its destination cluster and pulls from its source.
 * The engine that serves these is added with the mirror endpoints; the shapes are fixed here so the UI,
 * the OpenAPI document and the engine agree from the start.
 */

export const MirrorPartitionState = z.enum(MIRROR_PARTITION_STATES)
export type MirrorPartitionState = z.infer<typeof MirrorPartitionState>

export const MirrorParams = z.object({ mirror: Name })
export const MirrorPartitionParams = z.object({ mirror: Name, topic: Name, partition: PartitionString })

const ConfigValue = z.union([z.string().max(4096), z.number(), z.boolean(), z.array(z.string().max(4096)).max(1000)])
/** Mirror-level configs in Kafka's vocabulary (`request.timeout.ms`, `topics.include`, ...). */
export const MirrorConfig = z
  .record(z.string().min(1).max(255), ConfigValue)
  .refine((config) => Object.keys(config).length <= 200, 'at most 200 configs')
export type MirrorConfig = z.infer<typeof MirrorConfig>

export const PartitionsByState = z.partialRecord(MirrorPartitionState, NonNegativeInt)

export const MirrorSummary = z.object({
  name: Name,
  sourceCluster: Name,
  destinationCluster: Name,
  topics: z.array(Name),
  partitionsByState: PartitionsByState,
  maxOffsetLag: NonNegativeInt.nullable(),
  maxTimeLagMs: NonNegativeInt.nullable(),
})
export type MirrorSummary = z.infer<typeof MirrorSummary>

export const MirrorList = z.object({ mirrors: z.array(MirrorSummary) })
export type MirrorList = z.infer<typeof MirrorList>

export const Mirror = MirrorSummary.extend({ config: MirrorConfig })
export type Mirror = z.infer<typeof Mirror>

export const EpochOffset = z.object({ epoch: z.number().int().min(-1), offset: z.number().int().min(-1) })

export const TruncationPlanEntry = z.object({
  topic: Name,
  partition: PartitionIndex,
  /** null: the whole log is removed and restarts at the source's log start. */
  truncateTo: NonNegativeInt.nullable(),
  recordsToRemove: NonNegativeInt,
  lastMirrorPosition: EpochOffset.nullable(),
})
export const TruncationPlan = z.object({ mirror: Name, partitions: z.array(TruncationPlanEntry) })
export type TruncationPlan = z.infer<typeof TruncationPlan>

export const TruncationPlanResponse = z.object({ plan: TruncationPlan })

export const CreateMirrorRequest = z
  .strictObject({
    name: Name,
    sourceCluster: Name,
    destinationCluster: Name,
    topics: z.array(Name).max(10_000).optional(),
    topicsInclude: z.array(RegexString).max(100).optional(),
    topicsExclude: z.array(RegexString).max(100).optional(),
    config: MirrorConfig.optional(),
    dryRun: z.boolean().optional(),
  })
  .refine((request) => request.sourceCluster !== request.destinationCluster, {
    message: 'a mirror needs two different clusters',
    path: ['destinationCluster'],
  })
export type CreateMirrorRequest = z.infer<typeof CreateMirrorRequest>

export const PatchMirrorRequest = z.strictObject({ config: MirrorConfig })
export type PatchMirrorRequest = z.infer<typeof PatchMirrorRequest>

export const StartTopicsRequest = z.strictObject({
  topics: z.array(Name).max(10_000).optional(),
  patterns: z.array(RegexString).max(100).optional(),
  dryRun: z.boolean().optional(),
})
export type StartTopicsRequest = z.infer<typeof StartTopicsRequest>

/** pause, resume, recover: every topic of the mirror when `topics` is absent. */
export const MirrorTopicsRequest = z.strictObject({ topics: z.array(Name).max(10_000).optional() })
export type MirrorTopicsRequest = z.infer<typeof MirrorTopicsRequest>

export const MirrorTopicsResponse = z.object({ topics: z.array(Name) })

export const FailoverRequest = z.strictObject({
  topics: z.array(Name).max(10_000).optional(),
  dryRun: z.boolean().optional(),
  confirm: z.string().max(249).optional().describe("Must equal the mirror's name for a real failover."),
})
export type FailoverRequest = z.infer<typeof FailoverRequest>

export const FailoverGate = z.object({ name: z.string(), ok: z.boolean(), detail: z.string() })

export const FailoverPlanPartition = z.object({
  topic: Name,
  partition: PartitionIndex,
  state: MirrorPartitionState,
  mirroredOffset: NonNegativeInt,
  /** null when the source cannot be reached, as are the two at-risk figures. */
  sourceLogEndOffset: NonNegativeInt.nullable(),
  recordsAtRisk: NonNegativeInt.nullable(),
  timeAtRiskMs: NonNegativeInt.nullable(),
  transactionsToAbort: z.array(z.object({ producerId: NonNegativeInt, producerEpoch: NonNegativeInt, firstOffset: NonNegativeInt })),
  consumerGroupsBehind: z.array(z.object({ groupId: z.string(), committedOffset: NonNegativeInt })),
})

export const FailoverPlan = z.object({
  mirror: Name,
  gates: z.array(FailoverGate),
  partitions: z.array(FailoverPlanPartition),
})
export type FailoverPlan = z.infer<typeof FailoverPlan>

export const FailoverPlanResponse = z.object({ plan: FailoverPlan })
export const FailoverAccepted = z.object({ operation: z.string(), plan: FailoverPlan })

export const MirrorPartition = z.object({
  topic: Name,
  partition: PartitionIndex,
  state: MirrorPartitionState,
  stateEpoch: NonNegativeInt,
  stateSince: Timestamp,
  previousState: MirrorPartitionState.nullable(),
  retryAttempt: z.number().int().min(-1),
  error: z.string().nullable(),
  sourceHighWatermark: NonNegativeInt.nullable(),
  destinationHighWatermark: NonNegativeInt,
  destinationLogEndOffset: NonNegativeInt,
  offsetLag: NonNegativeInt.nullable(),
  timeLagMs: NonNegativeInt.nullable(),
  lastFetchAt: Timestamp.nullable(),
  destinationLeaderEpoch: z.number().int().min(-1),
  lastMirrorPosition: EpochOffset.nullable(),
  lastTruncation: z
    .object({ offset: NonNegativeInt, removedRecords: NonNegativeInt, at: Timestamp, reason: z.string() })
    .nullable(),
})
export type MirrorPartition = z.infer<typeof MirrorPartition>

export const MirrorPartitionsQuery = z.object({
  topic: Name.optional(),
  state: commaList(MirrorPartitionState).optional(),
})
export const MirrorPartitionList = z.object({ partitions: z.array(MirrorPartition) })

export const PartitionTransition = z.object({
  from: MirrorPartitionState,
  to: MirrorPartitionState,
  at: Timestamp,
  reason: z.string(),
})
export const PartitionHistory = z.object({ transitions: z.array(PartitionTransition) })
export type PartitionHistory = z.infer<typeof PartitionHistory>

export const LagQuery = z.object({
  topic: Name.optional(),
  from: IntegerString.optional(),
  to: IntegerString.optional(),
  stepMs: z
    .string()
    .regex(/^\d{1,10}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(100))
    .optional(),
})

/** `[t, offsetLag, timeLagMs]` */
export const LagPoint = z.tuple([Timestamp, NonNegativeInt.nullable(), NonNegativeInt.nullable()])
export const LagSeries = z.object({ topic: Name, partition: PartitionIndex, points: z.array(LagPoint) })
export const LagResponse = z.object({ series: z.array(LagSeries) })
export type LagResponse = z.infer<typeof LagResponse>
