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
})
export type OperationReport = z.infer<typeof OperationReport>
