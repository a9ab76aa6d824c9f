import { z } from 'zod'
import { Name, PartitionIndex, Timestamp } from './common'
import { FailoverPlan, MirrorPartitionState } from './mirrors'
import { Role } from './session'
import { SWITCHOVER_PHASES } from '../failover/switchover'

/**
 * Steps of a partition's STOPPING transition, in order (API.md "Operations"). A partition's `step` is the
 * step it performs next: `removeFetcher` until its stop begins, `done` once it is STOPPED.
 */
export const StoppingStep = z.enum(['removeFetcher', 'persistPosition', 'bumpEpoch', 'abortTransactions', 'pidReset', 'done'])
export type StoppingStep = z.infer<typeof StoppingStep>

/**
 * `rolledBack`: a planned switchover that could not drain (or was cancelled) and undid its fence: nothing was
 * lost and the mirror mirrors as before, so it is not `failed` (no OperationFailed alert); its reason is in
 * `switchover.reason`.
 */
export const OperationStatus = z.enum(['running', 'succeeded', 'failed', 'rolledBack'])
export type OperationStatus = z.infer<typeof OperationStatus>

/** A failover's type (API.md §"Round 3"): planned drains first and loses nothing; unplanned stops at once. */
export const FailoverType = z.enum(['planned', 'unplanned'])
export type FailoverType = z.infer<typeof FailoverType>

/**
 * Where a planned switchover stands (lib/failover/switchover.ts): its phase, how the source was fenced, the
 * time of each phase (RTO per phase), the drain as last read, and at the end what was lost, measured.
 */
export const SwitchoverProgress = z.object({
  phase: z.enum(SWITCHOVER_PHASES),
  fenceMethod: z.enum(['broker', 'acl', 'none']),
  drainTimeoutMs: z.number().int().positive(),
  transactionGraceMs: z.number().int().nonnegative(),
  /** When the fence was asked for, from which writes may be refused on the source (without a fence: when the operator was to have stopped them). */
  fencedAt: Timestamp.nullable(),
  drainStartedAt: Timestamp.nullable(),
  /** When the destination was verified to hold every record (lag 0 read from both sides). */
  drainedAt: Timestamp.nullable(),
  /** When every partition was STOPPED (the end of the time writes were refused). */
  stoppedAt: Timestamp.nullable(),
  rolledBackAt: Timestamp.nullable(),
  /** Why it rolled back (a drain timeout, a cancel, by whom); null otherwise. */
  reason: z.string().nullable(),
  /** Transactions the source's coordinator aborted once the grace ran out. */
  transactionsAbortedAtSource: z.number().int().nonnegative(),
  /** Consumer groups still with members on the source when the drain ended (their later commits are not synced). */
  groupsActiveOnSource: z.array(z.string()),
  drain: z
    .object({
      partitions: z.number().int().nonnegative(),
      partitionsBehind: z.number().int().nonnegative(),
      recordsBehind: z.number().int().nonnegative(),
      openTransactions: z.number().int().nonnegative(),
      at: Timestamp,
    })
    .nullable(),
  /** Measured at STOPPED: source log end minus the destination's mirrored offset; null until then (or when unknown). */
  recordsLost: z
    .object({
      total: z.number().int().nonnegative().nullable(),
      partitions: z.array(z.object({ topic: Name, partition: PartitionIndex, recordsLost: z.number().int().nonnegative().nullable() })),
    })
    .nullable(),
})
export type SwitchoverProgress = z.infer<typeof SwitchoverProgress>

/**
 * A multi-partition command the API answered with 202 (a failover). It is persisted before that answer and
 * survives restarts: an unfinished one resumes, a finished one keeps its outcome (API.md "Operations").
 */
export const Operation = z.object({
  id: z.string(),
  kind: z.string(),
  mirror: Name,
  status: OperationStatus,
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  /** Who asked for it; null for operations started without an API caller (scripts, tests). */
  // actorName: the person's name and address when they signed in through the identity provider.
  requestedBy: z.object({ actor: z.string(), actorName: z.string().optional(), role: Role.nullable() }).nullable(),
  /** When restarts found it unfinished and resumed it, oldest first (a restart killed within its first moments may be missing). */
  resumedAt: z.array(Timestamp),
  partitions: z.array(
    z.object({
      topic: Name,
      partition: PartitionIndex,
      step: StoppingStep,
      state: MirrorPartitionState,
      error: z.string().nullable(),
      /** When the partition reached its final state for this operation (STOPPED, or failed for good). */
      finishedAt: Timestamp.nullable(),
    }),
  ),
  /** Failing gates the operator forced past when confirming. */
  forcedGates: z.array(z.string()).optional(),
  /** planned (a switchover) or unplanned; absent on operations kept from before types existed (unplanned). */
  type: FailoverType.optional(),
  /** A planned switchover's phases (kind `switchover`). */
  switchover: SwitchoverProgress.optional(),
  /** The failover plan the operation committed to (GET /operations/{id} only; lists leave it out). */
  plan: FailoverPlan.optional(),
})
export type Operation = z.infer<typeof Operation>

/**
 * `operation` event data (GET /events): the operation as listed, and what happened to it. `resumed` is sent
 * when a restarted server picks up an operation that was running, so an open wizard shows it again.
 */
export const OperationChange = z.enum(['accepted', 'progress', 'resumed', 'finished'])
export type OperationChange = z.infer<typeof OperationChange>
export const OperationEvent = Operation.omit({ plan: true }).extend({
  change: OperationChange,
  /** A `progress` event of a running operation: `partitions` holds only those changed since its previous event (server/http/events-operation-delta.ts). */
  partial: z.literal(true).optional(),
})
export type OperationEvent = z.infer<typeof OperationEvent>

export const OperationList = z.object({ operations: z.array(Operation) })
export const OperationsQuery = z.object({
  status: OperationStatus.optional(),
  mirror: Name.optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be an integer from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .default(100)
    .describe('At most this many operations, newest first (history keeps at least the last 1,000 or 30 days).'),
})
export const OperationParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not an operation id') })
