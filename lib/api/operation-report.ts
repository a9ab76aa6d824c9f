import { z } from 'zod'
import { Name, NonNegativeInt, PartitionIndex, Timestamp } from './common'
import { EpochOffset, FailoverGate, FailoverPlan, MirrorPartitionState } from './mirrors'
import { OperationStatus, StoppingStep } from './operations'

/**
 * The downloadable report of a failover (GET /operations/{id}/report): what the operator confirmed
 * (the plan, who, when, which gates were forced) and what happened on each partition (the ABORT markers
 * with their producer ids and offsets, the MIRROR_PID_RESET offset, the final leader epoch, timings), as
 * read back from the destination's log, not as predicted.
 */
export const ReportMarker = z.object({ offset: NonNegativeInt, producerId: NonNegativeInt, producerEpoch: z.number().int() })

export const ReportPartition = z.object({
  topic: Name,
  partition: PartitionIndex,
  state: MirrorPartitionState,
  step: StoppingStep,
  error: z.string().nullable(),
  lastMirrorPosition: EpochOffset.nullable(),
  /** The destination partition's leader epoch now. */
  finalLeaderEpoch: z.number().int().min(-1),
  /** ABORT markers the stop appended, in log order. */
  aborted: z.array(ReportMarker),
  pidResetOffset: NonNegativeInt.nullable(),
  /**
   * Present when the destination log could not be read back (its cluster unreachable or removed): why. `aborted`
   * and `pidResetOffset` are then unknown, not empty.
   */
  markersUnread: z.string().optional(),
  /** When the partition entered STOPPING and STOPPED in this operation (null when it did not). */
  stoppingAt: Timestamp.nullable(),
  stoppedAt: Timestamp.nullable(),
  durationMs: NonNegativeInt.nullable(),
})
export type ReportPartition = z.infer<typeof ReportPartition>

/** A mirror's objectives (API.md §"Round 3" `config.objectives`), as the report compares against them. */
export const ReportObjectives = z.object({
  rpoSeconds: z.number().nonnegative().optional(),
  rpoRecords: NonNegativeInt.optional(),
  rtoSeconds: z.number().nonnegative().optional(),
  drillIntervalDays: z.number().positive().optional(),
})
export type ReportObjectives = z.infer<typeof ReportObjectives>

/** One line of the post-mortem's timeline; `partitions` counts the partitions a grouped transition covers. */
export const TimelineEntry = z.object({
  at: Timestamp,
  event: z.enum(['confirmed', 'gate', 'forced', 'transition', 'resumed', 'finished', 'verified']),
  detail: z.string(),
  partitions: NonNegativeInt.optional(),
})
export type TimelineEntry = z.infer<typeof TimelineEntry>

/** A measured figure against its objective; `met` is null when either is unknown. */
export const ObjectiveResult = z.object({
  name: z.enum(['rpoRecords', 'rpoSeconds', 'rtoSeconds']),
  objective: z.number().nullable(),
  measured: z.number().nullable(),
  met: z.boolean().nullable(),
})
export type ObjectiveResult = z.infer<typeof ObjectiveResult>

export const ReportVerification = z.object({
  id: z.string(),
  status: z.string(),
  finishedAt: Timestamp.nullable(),
  partitions: z.array(z.object({ topic: Name, partition: PartitionIndex, status: z.string(), summary: z.string(), identicalUpTo: NonNegativeInt, mismatchCount: NonNegativeInt })),
})
export type ReportVerification = z.infer<typeof ReportVerification>

/** Where a consumer group resumes on the destination after the failover, per partition of the operation. */
export const ReportGroupResume = z.object({
  groupId: z.string(),
  topic: Name,
  partition: PartitionIndex,
  /** Its committed offset on the destination (synced by the mirror): the first record it reads there. */
  resumeAt: NonNegativeInt,
  /** Its committed offset on the source when the failover was planned (null when not behind or unknown). */
  committedAtSource: NonNegativeInt.nullable(),
  /** Records it reads a second time (committed at the source, not at the destination). */
  offsetsToReprocess: NonNegativeInt.nullable(),
})
export type ReportGroupResume = z.infer<typeof ReportGroupResume>

/** `?format=md`: the post-mortem as Markdown (text/markdown); JSON otherwise. */
export const ReportQuery = z.object({ format: z.enum(['json', 'md']).optional().describe('md: the post-mortem as a Markdown document (text/markdown); json (the default): this schema.') })

export const OperationReport = z.object({
  format: z.literal('mirrorboard.failover-report/1'),
  generatedAt: Timestamp,
  operation: z.object({
    id: z.string(),
    kind: z.string(),
    mirror: Name,
    sourceCluster: Name.nullable(),
    destinationCluster: Name.nullable(),
    status: OperationStatus,
    startedAt: Timestamp,
    finishedAt: Timestamp.nullable(),
    durationMs: NonNegativeInt.nullable(),
  }),
  confirmation: z.object({
    /** The audit actor that confirmed ("token:operator", "session:…"); null when not recorded. */
    confirmedBy: z.string().nullable(),
    confirmedAt: Timestamp,
    forcedGates: z.array(FailoverGate),
  }),
  totals: z.object({
    partitions: NonNegativeInt,
    stopped: NonNegativeInt,
    failed: NonNegativeInt,
    recordsAtRisk: NonNegativeInt.nullable(),
    transactionsAborted: NonNegativeInt,
    producersAborted: z.array(NonNegativeInt),
  }),
  /** The plan the operation committed to when the operator confirmed. */
  plan: FailoverPlan,
  partitions: z.array(ReportPartition),
  /** Oldest first: confirmation, gates, forced gates, transitions (grouped), restarts, the end, the verification. */
  timeline: z.array(TimelineEntry),
  /**
   * RTO: confirmation → the last partition writable (STOPPED). RPO: the records and the age of the oldest record
   * the source held beyond the mirrored point when the failover was confirmed (null when the source could not say).
   */
  measured: z.object({
    rtoMs: NonNegativeInt.nullable(),
    rpo: z.object({ records: NonNegativeInt.nullable(), seconds: z.number().nonnegative().nullable() }),
    /**
     * A planned switchover's phases (lib/failover/recovery-time.ts): fence (with the transactions' grace), drain,
     * stop, and how long clients could write nowhere (fence → STOPPED or the rollback); the records lost, measured at
     * STOPPED. Absent for an unplanned failover.
     */
    switchover: z
      .object({
        fenceMs: NonNegativeInt.nullable(),
        drainMs: NonNegativeInt.nullable(),
        stopMs: NonNegativeInt.nullable(),
        writesRefusedMs: NonNegativeInt.nullable(),
        recordsLost: NonNegativeInt.nullable(),
      })
      .optional(),
  }),
  /** The mirror's objectives when the report was made; null when none are set. */
  objectives: ReportObjectives.nullable(),
  objectiveResults: z.array(ObjectiveResult),
  /** The verification that ran after the failover (source against destination up to each last mirror position). */
  verification: ReportVerification.nullable(),
  consumerGroups: z.array(ReportGroupResume),
})
export type OperationReport = z.infer<typeof OperationReport>
