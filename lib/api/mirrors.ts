// Over 400 lines on purpose: the zod schemas of every mirror request and answer of API.md (mirrors, partitions, plans, lag, throughput), one contract read in one place; the OpenAPI document is generated from them.
import { z } from 'zod'
import { FAILURE_CODES } from '@/lib/mirror/failure-code'
import { MIRROR_PARTITION_STATES, MIRROR_PARTITION_STATE_SYNONYMS, isMirrorPartitionState } from '@/lib/mirror/states'
import type { GateName } from '@/lib/mirror/failover-plan'
import { throttledReplicaEntryProblem } from '@/lib/mirror/replication-throttle'
import { STOPPING_STEPS } from '@/lib/mirror/stopping'
import { IntegerString, Name, NonNegativeInt, PartitionIndex, PartitionString, RegexString, Timestamp, commaList } from './common'
import { SplitBrain } from './split-brain'
import { MAX_DRAIN_TIMEOUT_MS, MAX_TRANSACTION_GRACE_MS } from '@/lib/failover/switchover'

/**
 * Mirrors (API.md "Mirrors"): a mirror is owned by its destination cluster and pulls from its source.
 * The engine that serves these is added with the mirror endpoints; the shapes are fixed here so the UI,
 * the OpenAPI document and the engine agree from the start.
 */

export const MirrorPartitionState = z.enum(MIRROR_PARTITION_STATES)
export type MirrorPartitionState = z.infer<typeof MirrorPartitionState>

export const MirrorParams = z.object({ mirror: Name })
export const MirrorPartitionParams = z.object({ mirror: Name, topic: Name, partition: PartitionString })

const ConfigValue = z.union([z.string().max(4096), z.number(), z.boolean(), z.array(z.string().max(4096)).max(1000), z.record(z.string().max(64), z.number()).refine((value) => Object.keys(value).length <= 10)])
/** Mirror-level configs in Kafka's vocabulary (`request.timeout.ms`, `topics.include`, ...), as a mirror shows them. */
export const MirrorConfig = z
  .record(z.string().min(1).max(255), ConfigValue)
  .refine((config) => Object.keys(config).length <= 200, 'at most 200 configs')
export type MirrorConfig = z.infer<typeof MirrorConfig>

// Kafka keeps sizes, intervals and counts in an int32; larger values are typos, not settings.
const PositiveInt32 = z.number().int().min(1).max(2 ** 31 - 1)
const PatternList = z.array(RegexString).max(100)

/**
 * The configs a request may set (KIP-1279.md §7.3), each with its type: an unknown key or a wrong type is
 * refused here, so the engine never stores a setting it would later trip over. Keys left out keep their
 * current value (PATCH) or default (create).
 */
export const MirrorObjectives = z.strictObject({
  rpoSeconds: z.number().nonnegative().max(31_536_000).optional(),
  rpoRecords: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  rtoSeconds: z.number().nonnegative().max(31_536_000).optional(),
  drillIntervalDays: z.number().positive().max(3650).optional(),
})
export type MirrorObjectives = z.infer<typeof MirrorObjectives>

export const MirrorConfigInput = z.strictObject({
  'topics.include': PatternList.optional(),
  'topics.exclude': PatternList.optional(),
  'groups.include': PatternList.optional(),
  'groups.exclude': PatternList.optional(),
  'topic.properties.exclude': z.array(z.string().min(1).max(255)).max(200).optional(),
  'fetch.max.bytes': PositiveInt32.optional(),
  'fetch.response.max.bytes': PositiveInt32.optional(),
  'mirror.metadata.refresh.interval.ms': PositiveInt32.optional(),
  'mirror.failed.retry.initial.backoff.ms': PositiveInt32.optional(),
  'mirror.failed.retry.max.backoff.ms': PositiveInt32.optional(),
  'mirror.failed.retry.max.attempts': z.number().int().min(0).max(2 ** 31 - 1).optional(),
  /** Bytes per second; 0 turns the throttle off. */
  'mirror.replication.throttled.rate': z.number().int().min(0).max(2 ** 31 - 1).optional(),
  /**
   * The mirror's objectives (API.md §"Round 3"): the recovery-point objective in records and seconds (an unplanned
   * failover that would lose more is refused without an explicit force), the recovery-time objective and the
   * drill cadence the reports and alerts compare against. null removes them; the object replaces them whole.
   */
  objectives: MirrorObjectives.nullable().optional(),
  'mirror.replication.throttled.replicas': z
    .array(
      z
        .string()
        .max(300)
        .refine((entry) => throttledReplicaEntryProblem(entry) === null, 'each entry is "*", "<topic>:*" or "<topic>:<partition>"'),
    )
    .max(10_000)
    .optional(),
})
export type MirrorConfigInput = z.infer<typeof MirrorConfigInput>

export const PartitionsByState = z.partialRecord(MirrorPartitionState, NonNegativeInt)

/**
 * What a destination that is not a native KIP-1279 cluster (a real Kafka cluster, DESIGN.md §5) does by
 * emulation: one note per point, and the offset translation table where destination offsets differ.
 */
export const EmulationNote = z.object({
  code: z.enum([
    'PRODUCED_IN_SOURCE_ORDER',
    'DESTINATION_TRANSACTIONS',
    'STATE_TOPIC',
    'READ_ONLY_ENFORCED',
    'READ_ONLY_DETECTED',
    'READ_ONLY_VIOLATED',
    'TRUNCATION_BY_REBUILD',
    'OFFSETS_IDENTICAL',
    'OFFSETS_TRANSLATED',
    'LEADER_EPOCH_RECORDED',
    'MIRROR_PID_RESET_RECORDED',
    'RECORD_NOT_REPRODUCED',
    // A drill of a mirror into a Kafka cluster (server/drills/): its copy is built from the broker's log.
    'DRILL_COPY_FROM_BROKER_LOG',
  ]),
  message: z.string(),
})
export type EmulationNote = z.infer<typeof EmulationNote>

export const Emulation = z.object({
  notes: z.array(EmulationNote),
  /** From each `sourceOffset` on, destination offset = destinationOffset + (offset - sourceOffset). */
  offsetTranslation: z.array(z.object({ sourceOffset: NonNegativeInt, destinationOffset: NonNegativeInt })).optional(),
})
export type Emulation = z.infer<typeof Emulation>

export const MirrorSummary = z.object({
  name: Name,
  sourceCluster: Name,
  destinationCluster: Name,
  topics: z.array(Name),
  partitionsByState: PartitionsByState,
  maxOffsetLag: NonNegativeInt.nullable(),
  /** Offset lag summed over the mirror's MIRRORING partitions: how many records the destination is behind. */
  totalOffsetLag: NonNegativeInt.nullable(),
  maxTimeLagMs: NonNegativeInt.nullable(),
  /**
   * true: the lag figures are current. false: a partition's source is silent (FAILED, PAUSED, stalled fetches)
   * and the figures are lower bounds as of `lagAsOf`, or null when a partition's lag was never known. STOPPED,
   * STOPPING and UNKNOWN partitions have no lag; a mirror with nothing else has null figures.
   */
  lagKnown: z.boolean().optional(),
  /** The oldest source reading the lag figures rest on. */
  lagAsOf: Timestamp.nullable().optional(),
  /** Records written to the old source since the failover, while partitions are STOPPED; null otherwise. */
  splitBrain: SplitBrain.nullable().optional(),
  /** The replication throttle held the mirror's fetches back within the last seconds: its rate, not the link, limits it. */
  throttled: z.boolean().optional(),
  /** `mirror.replication.throttled.rate` in bytes per second; null when the mirror is not throttled. */
  throttledRate: NonNegativeInt.nullable().optional(),
  /** What flows now, beside the lag (lib/mirror/throughput.ts), over the last 10 s. */
  throughput: z
    .object({
      recordsPerSecond: z.number().min(0).nullable(),
      bytesPerSecond: z.number().min(0).nullable(),
      /** Median fetch duration, including the wait at the source for new records (up to 500 ms); null when no fetch was made. */
      fetchLatencyMs: z.number().min(0).nullable(),
      fetchLatencyMaxMs: z.number().min(0).nullable(),
      /** Throttled bytes per second over the throttle's rate (1: the rate is the limit); null without a throttle. */
      throttleUse: z.number().min(0).nullable(),
      fetches: NonNegativeInt,
      asOf: Timestamp,
    })
    .optional(),
  /** Present when the destination is emulated (a Kafka cluster): what differs from a native mirror. */
  emulation: Emulation.optional(),
  /**
   * The RPO objective and where the recovery point stands against it now (issue #34), for the overview's edges
   * and the mirror list; null without an RPO objective, or once no partition is mirrored (failed over). `unknown`: a source is silent, the figures are lower
   * bounds, never shown as met. GET /mirrors/{m}/objectives has the compliance over time.
   */
  objectives: z
    .object({
      status: z.enum(['met', 'breached', 'unknown']),
      rpoRecords: NonNegativeInt.nullable(),
      rpoSeconds: z.number().nonnegative().nullable(),
      /** The records at risk and the age of the oldest not yet mirrored, s (lower bounds unless `known`). */
      records: NonNegativeInt.nullable(),
      seconds: z.number().nonnegative().nullable(),
      /** false: a source is silent, the figures are lower bounds. */
      known: z.boolean(),
    })
    .nullable()
    .optional(),
  /** How recently its failover was rehearsed (lib/drill/cadence.ts): "last successful drill N days ago", the drillIntervalDays objective. */
  drills: z
    .object({
      lastSucceededAt: Timestamp.nullable(),
      daysSince: NonNegativeInt.nullable(),
      intervalDays: z.number().positive().nullable(),
      dueAt: Timestamp.nullable(),
      overdue: z.boolean().nullable(),
      /** The drill running now, if any. */
      running: z.string().nullable(),
    })
    .optional(),
  /** The instance that runs the mirror, when several share the work (docs/high-availability.md); absent for a single instance. */
  owner: z.string().nullable().optional(),
})
export type MirrorSummary = z.infer<typeof MirrorSummary>

export const MirrorList = z.object({
  mirrors: z.array(MirrorSummary),
  /** Several instances: those that did not answer in time, whose mirrors this list lacks (docs/high-availability.md). */
  instancesMissing: z.array(z.string()).optional(),
})
export type MirrorList = z.infer<typeof MirrorList>

/**
 * The mirror's state version (KIP-1279's StateOffset): it changes whenever a partition changes state or the
 * mirror's definition changes. Sent as the ETag of GET /mirrors/{mirror} and of the partition list; a
 * mutation with `If-Match` is refused with 412 PRECONDITION_FAILED once it moved.
 */
export const StateVersion = z.string().describe("The mirror's state version, also sent as the ETag header")

export const Mirror = MirrorSummary.extend({ config: MirrorConfig, stateVersion: StateVersion })
export type Mirror = z.infer<typeof Mirror>

export const EpochOffset = z.object({ epoch: z.number().int().min(-1), offset: z.number().int().min(-1) })

export const TruncationPlanEntry = z.object({
  topic: Name,
  partition: PartitionIndex,
  /** null: the whole log is removed and restarts at the source's log start. */
  truncateTo: NonNegativeInt.nullable(),
  recordsToRemove: NonNegativeInt,
  lastMirrorPosition: EpochOffset.nullable(),
  /** Where fetching from the source resumes (the log end offset after the truncation). */
  fetchOffset: NonNegativeInt.optional(),
  /** `fromScratch`, `failback` or `uncleanLeaderElection`. */
  reason: z.string().optional(),
  /** Which case of the truncation decision applied (lib/mirror/truncation.ts). */
  basis: z.string().optional(),
  /**
   * The destination cannot truncate a log (a Kafka cluster, by emulation): its topic is deleted, created again
   * and mirrored from the source's log start; what truncateTo/recordsToRemove describe is lost.
   */
  rebuild: z.boolean().optional(),
  /** Why the rebuild, and what it does, in the operator's words. */
  emulation: z.string().optional(),
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
    config: MirrorConfigInput.optional(),
    dryRun: z.boolean().optional(),
  })
  .refine((request) => request.sourceCluster !== request.destinationCluster, {
    message: 'a mirror needs two different clusters',
    path: ['destinationCluster'],
  })
export type CreateMirrorRequest = z.infer<typeof CreateMirrorRequest>

export const PatchMirrorRequest = z.strictObject({ config: MirrorConfigInput })
export type PatchMirrorRequest = z.infer<typeof PatchMirrorRequest>

export const StartTopicsRequest = z
  .strictObject({
    topics: z.array(Name).max(10_000).optional(),
    patterns: z.array(RegexString).max(100).optional(),
    dryRun: z.boolean().optional(),
  })
  .refine((request) => (request.topics?.length ?? 0) + (request.patterns?.length ?? 0) > 0, {
    message: 'name at least one topic or pattern to start',
    path: ['topics'],
  })
export type StartTopicsRequest = z.infer<typeof StartTopicsRequest>

// An empty list is refused rather than read as "all": `topics: []` built from an empty selection must
// never pause, or fail over, every topic of the mirror.
const TopicSelection = z.array(Name).min(1, 'name at least one topic, or leave topics out for all').max(10_000)

/** pause, resume, recover: every topic of the mirror when `topics` is absent. */
export const MirrorTopicsRequest = z.strictObject({ topics: TopicSelection.optional() })
export type MirrorTopicsRequest = z.infer<typeof MirrorTopicsRequest>

/** One partition of a topic, named by a request. */
export const TopicPartitionRef = z.strictObject({ topic: Name, partition: PartitionIndex })

/**
 * recover: by topics (every FAILED partition of each; all of the mirror's without names) or by partitions (a
 * row's "Retry now": each named partition must be FAILED, or nothing is retried). Not both at once.
 */
export const RecoverTopicsRequest = z
  .strictObject({
    topics: TopicSelection.optional(),
    partitions: z.array(TopicPartitionRef).min(1, 'name at least one partition, or leave partitions out').max(10_000).optional(),
  })
  .refine((request) => request.topics === undefined || request.partitions === undefined, {
    message: 'name topics or partitions, not both',
    path: ['partitions'],
  })
export type RecoverTopicsRequest = z.infer<typeof RecoverTopicsRequest>

/** A partition a command left alone because it was not in a state the command applies to. */
export const SkippedPartition = z.object({ topic: Name, partition: PartitionIndex, state: MirrorPartitionState })

export const MirrorTopicsResponse = z.object({
  topics: z.array(Name),
  /** Present when the request named no topics (or gave patterns) and some partitions did not qualify. */
  skipped: z.array(SkippedPartition).optional(),
})

/** recover's answer: with `partitions` when the request named partitions (the ones it retried). */
export const RecoverTopicsResponse = MirrorTopicsResponse.extend({ partitions: z.array(TopicPartitionRef).optional() })

/** The preflight gates of a failover plan (lib/mirror/failover-plan.ts). */
export const FailoverGateName = z.enum(['partitions-selected', 'partitions-stoppable', 'source-reachable', 'lag-threshold', 'partitions-failed', 'rpo-objective', 'write-fence'])
/** Typed against the planner's names, so a gate renamed there fails to compile here. */
export const FAILOVER_GATE_NAMES: readonly GateName[] = FailoverGateName.options

export const FailoverRequest = z.strictObject({
  topics: TopicSelection.optional(),
  type: z
    .enum(['planned', 'unplanned'])
    .optional()
    .describe('planned: fence writes on the source, drain to lag 0, then stop (nothing lost; rolls back if it cannot drain). unplanned (the default): stop now, losing what the plan shows at risk.'),
  drainTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(MAX_DRAIN_TIMEOUT_MS)
    .optional()
    .describe('planned only: how long the drain may take before the switchover rolls back (default 120000).'),
  transactionGraceMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_TRANSACTION_GRACE_MS)
    .optional()
    .describe("planned only: how long transactions open at the fence may take to commit or abort before the source's coordinator aborts them (default 30000)."),
  dryRun: z.boolean().optional(),
  confirm: z.string().max(249).optional().describe("Must equal the mirror's name for a real failover."),
  force: z
    .array(FailoverGateName)
    .max(10)
    .optional()
    .describe(
      'Failing warning gates the operator explicitly forces past (audited). When given, every failing gate not named here refuses the failover; blocking gates cannot be forced.',
    ),
})
export type FailoverRequest = z.infer<typeof FailoverRequest>

export const FailoverGate = z.object({
  name: z.string(),
  ok: z.boolean(),
  /** A failed `blocking` gate refuses the failover; a failed `warning` gate only informs. */
  severity: z.enum(['blocking', 'warning']).optional(),
  detail: z.string(),
})

/** Records and time at risk (lib/mirror/at-risk.ts): exact when `known`, lower bounds otherwise. */
export const AtRisk = z.object({
  records: NonNegativeInt.nullable(),
  timeMs: NonNegativeInt.nullable(),
  known: z.boolean(),
  asOf: Timestamp.nullable(),
})

export const FailoverPlanPartition = z.object({
  topic: Name,
  partition: PartitionIndex,
  state: MirrorPartitionState,
  /** `stop`, `stopInProgress`, `alreadyStopped` or `cannotStop`. */
  action: z.enum(['stop', 'stopInProgress', 'alreadyStopped', 'cannotStop']).optional(),
  mirroredOffset: NonNegativeInt,
  /** null when the source cannot be reached, as are the two at-risk figures. */
  sourceLogEndOffset: NonNegativeInt.nullable(),
  recordsAtRisk: NonNegativeInt.nullable(),
  timeAtRiskMs: NonNegativeInt.nullable(),
  /**
   * The same figures as lib/mirror/at-risk.ts gives the mirror and partition pages: exact when `known`, else lower
   * bounds from the mirror's last successful fetch (as of `asOf`). Absent in plans kept before it existed.
   */
  atRisk: AtRisk.optional(),
  transactionsToAbort: z.array(z.object({ producerId: NonNegativeInt, producerEpoch: NonNegativeInt, firstOffset: NonNegativeInt })),
  consumerGroupsBehind: z.array(
    z.object({
      groupId: z.string(),
      /** Where the group resumes on the destination; null when it has no committed offset there. */
      committedOffset: NonNegativeInt.nullable(),
      sourceCommittedOffset: NonNegativeInt.optional(),
      /** Mirrored offsets the group will read a second time; null when it has no offset on the destination. */
      offsetsToReprocess: NonNegativeInt.nullable().optional(),
      /** Offsets the group consumed on the source that were never mirrored. */
      offsetsNotMirrored: NonNegativeInt.optional(),
    }),
  ),
})

export const FailoverPlan = z.object({
  mirror: Name,
  /** planned or unplanned; absent in plans kept before types existed (unplanned). */
  type: z.enum(['planned', 'unplanned']).optional(),
  /** A planned switchover's fence and bounds. */
  switchover: z
    .object({
      fenceMethod: z.enum(['broker', 'acl', 'none']),
      drainTimeoutMs: z.number().int().positive(),
      transactionGraceMs: z.number().int().nonnegative(),
    })
    .optional(),
  /**
   * The mirror's recovery-point objective and what this failover would put at risk against it (the
   * `rpo-objective` gate); absent when the mirror sets none.
   */
  rpo: z
    .object({
      objective: z.object({ rpoRecords: NonNegativeInt.optional(), rpoSeconds: z.number().nonnegative().optional() }),
      records: NonNegativeInt.nullable(),
      seconds: z.number().nonnegative().nullable(),
      known: z.boolean(),
      status: z.enum(['met', 'breached', 'unknown']),
    })
    .optional(),
  gates: z.array(FailoverGate),
  /** No blocking gate failed: a real failover with this selection would start. */
  canProceed: z.boolean().optional(),
  partitions: z.array(FailoverPlanPartition),
})
export type FailoverPlan = z.infer<typeof FailoverPlan>

export const FailoverPlanResponse = z.object({ plan: FailoverPlan })
export const FailoverAccepted = z.object({ operation: z.string(), plan: FailoverPlan })

/**
 * POST /mirrors/{m}/unfence: lifts the write fences the mirror's planned switchover left on its source's topics
 * (all of them when `topics` is absent). It reopens the old source to client writes, so it is typed like a failover.
 */
export const UnfenceRequest = z.strictObject({
  topics: TopicSelection.optional(),
  confirm: z.string().describe('the mirror name, typed: lifting a fence reopens the old source to client writes'),
})
export type UnfenceRequest = z.infer<typeof UnfenceRequest>

export const LiftedWriteFence = z.object({ topic: Name, operation: z.string(), since: Timestamp })

export const UnfenceResponse = z.object({
  mirror: Name,
  sourceCluster: Name,
  /** The fences lifted; empty when the mirror held none on those topics (unfencing is idempotent). */
  unfenced: z.array(LiftedWriteFence),
})
export type UnfenceResponse = z.infer<typeof UnfenceResponse>

/** GET /mirrors/{m}/fences: the write fences the mirror's planned switchover keeps on its source, read from the source now. */
export const MirrorFencesResponse = z.object({
  mirror: Name,
  sourceCluster: Name,
  fences: z.array(LiftedWriteFence),
})
export type MirrorFencesResponse = z.infer<typeof MirrorFencesResponse>

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
  /**
   * true: offsetLag and timeLagMs are current. false: the source has not answered lately, and they are lower
   * bounds as of `lagAsOf` (the last successful fetch), or null when it never answered; STOPPED, STOPPING and
   * UNKNOWN partitions have no lag at all (null).
   */
  lagKnown: z.boolean().optional(),
  lagAsOf: Timestamp.nullable().optional(),
  /** While lagKnown is false: the time lag is now − timeLagFrom, so it keeps growing (timeLagMs is its value at the answer). */
  timeLagFrom: Timestamp.nullable().optional(),
  /** Why a FAILED partition failed, as a code: SOURCE_UNREACHABLE, FETCH_ERROR, LOG_DIVERGED, ... (null otherwise). */
  failureCode: z.enum(FAILURE_CODES).nullable().optional(),
  /** When the engine retries a FAILED partition next; null when no retry is scheduled (not retryable, or not FAILED). */
  nextRetryAt: Timestamp.nullable().optional(),
  destinationLeaderEpoch: z.number().int().min(-1),
  lastMirrorPosition: EpochOffset.nullable(),
  lastTruncation: z
    .object({ offset: NonNegativeInt, removedRecords: NonNegativeInt, at: Timestamp, reason: z.string() })
    .nullable(),
  /** The next STOPPING step while STOPPING (`done` once STOPPED); null in every other state. */
  stoppingStep: z.enum(STOPPING_STEPS).nullable().optional(),
  /**
   * While FAILED with LOG_DIVERGED (an unclean leader election on the source, KIP-1279.md §3.5, on a topic that
   * may not truncate): the source's diverging leader epoch and the offset where it ends, where the destination's
   * log would be cut (null: all of it) and how many records that would remove. Null otherwise.
   */
  divergence: z
    .object({ epoch: z.number().int().min(-1), offset: z.number().int().min(-1), truncateTo: NonNegativeInt.nullable(), recordsToCut: NonNegativeInt, logEndOffset: NonNegativeInt })
    .nullable()
    .optional(),
  /**
   * false while the state shown is not yet in the destination's `__mirror_state` (the destination, or its storage,
   * does not answer): a FAILED shown with its reason and retries before it could be saved. A restart meanwhile
   * resumes from the saved state; commands are refused (INVALID_MIRROR_STATE) until it is saved.
   */
  stateDurable: z.boolean().optional(),
  /** Present when the destination is emulated (a Kafka cluster): what was done differently on this partition. */
  emulation: Emulation.optional(),
})
export type MirrorPartition = z.infer<typeof MirrorPartition>

/**
 * A state name as operators write it: any case, and the KIP's newer names LOG_ALIGNMENT (PREPARING) and
 * ULE_RECOVERY (ULE_LOG_TRUNCATION), as `parseMirrorPartitionState` reads them.
 */
export const MirrorPartitionStateName = z
  .string()
  .transform((text, context) => {
    const name = text.trim().toUpperCase()
    if (isMirrorPartitionState(name)) return name
    if (Object.hasOwn(MIRROR_PARTITION_STATE_SYNONYMS, name)) return MIRROR_PARTITION_STATE_SYNONYMS[name as keyof typeof MIRROR_PARTITION_STATE_SYNONYMS]
    context.addIssue({ code: 'custom', message: `unknown mirror partition state "${text}"`, input: text })
    return z.NEVER
  })
  .pipe(MirrorPartitionState)

export const MirrorPartitionsQuery = z.object({
  topic: Name.optional(),
  state: commaList(MirrorPartitionStateName)
    .optional()
    .describe('Comma-separated states; LOG_ALIGNMENT and ULE_RECOVERY are accepted for PREPARING and ULE_LOG_TRUNCATION.'),
})
export const MirrorPartitionList = z.object({ partitions: z.array(MirrorPartition), stateVersion: StateVersion })

/** GET /mirrors filters (ListClusterMirrors options): exact names, and mirrors with any partition in a state. */
export const MirrorListQuery = z.object({
  name: Name.optional(),
  sourceCluster: Name.optional(),
  state: commaList(MirrorPartitionStateName)
    .optional()
    .describe('Comma-separated states: mirrors with at least one partition in one of them.'),
})

export const PartitionTransition = z.object({
  from: MirrorPartitionState,
  to: MirrorPartitionState,
  at: Timestamp,
  reason: z.string(),
  /** The failure's message, on a transition into FAILED. */
  error: z.string().optional(),
  /** Consecutive failures carried through this transition (-1: not retryable); absent when 0. */
  retryAttempt: z.number().int().min(-1).optional(),
})
export const PartitionHistory = z.object({ transitions: z.array(PartitionTransition) })
export type PartitionHistory = z.infer<typeof PartitionHistory>

export const LagQuery = z
  .object({
    topic: Name.optional(),
    from: IntegerString.optional(),
    to: IntegerString.optional(),
    stepMs: z
      .string()
      .regex(/^\d{1,10}$/, 'must be a positive integer')
      .transform(Number)
      .pipe(z.number().int().min(100))
      .optional(),
    /** `topic`: one series per topic (`topics`, `series` empty), folded on the server; needs `stepMs`, whose buckets it folds. */
    by: z.enum(['partition', 'topic']).optional(),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    message: 'from must not be after to',
    path: ['from'],
  })
  .refine((query) => query.by !== 'topic' || query.stepMs !== undefined, { message: 'by=topic needs stepMs', path: ['by'] })

/** `[t, offsetLag, timeLagMs]` */
export const LagPoint = z.tuple([Timestamp, NonNegativeInt.nullable(), NonNegativeInt.nullable()])
export const LagSeries = z.object({ topic: Name, partition: PartitionIndex, points: z.array(LagPoint) })
/** A topic's partitions folded (`by=topic`): offset lag summed, time lag the worst partition's; null where none had a figure. */
export const TopicLagSeries = z.object({ topic: Name, partitions: NonNegativeInt, points: z.array(LagPoint) })
export const LagResponse = z.object({
  series: z.array(LagSeries),
  /** With `by=topic` only: one series per topic, on the `stepMs` buckets. */
  topics: z.array(TopicLagSeries).optional(),
  /** Records and bytes per second appended to the destination, `[t, recordsPerSecond, bytesPerSecond]` a second apart, over the last 5 min at most. */
  throughput: z.array(z.tuple([Timestamp, z.number().min(0), z.number().min(0)])).optional(),
  /** Spans of time when some partition's lag was not known (its source silent): the points there are lower bounds. `to` null: still so. */
  lagUnknown: z.array(z.object({ from: Timestamp, to: Timestamp.nullable() })).optional(),
  /** As in the mirror summary: the replication throttle is holding the mirror back now. */
  throttled: z.boolean().optional(),
  throttledRate: NonNegativeInt.nullable().optional(),
})
export type LagResponse = z.infer<typeof LagResponse>
