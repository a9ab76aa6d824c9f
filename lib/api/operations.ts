import { z } from 'zod'
import { Name, PartitionIndex, Timestamp } from './common'
import { FailoverPlan, MirrorPartitionState } from './mirrors'

/**
 * Steps of a partition's STOPPING transition, in order (API.md "Operations"). A partition's `step` is the
 * step it performs next: `removeFetcher` until its stop begins, `done` once it is STOPPED.
 */
export const StoppingStep = z.enum(['removeFetcher', 'persistPosition', 'bumpEpoch', 'abortTransactions', 'pidReset', 'done'])
export type StoppingStep = z.infer<typeof StoppingStep>

export const OperationStatus = z.enum(['running', 'succeeded', 'failed'])

export const Operation = z.object({
  id: z.string(),
  kind: z.string(),
  mirror: Name,
  status: OperationStatus,
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  partitions: z.array(
    z.object({
      topic: Name,
      partition: PartitionIndex,
      step: StoppingStep,
      state: MirrorPartitionState,
      error: z.string().nullable(),
    }),
  ),
  /** Who confirmed the failover (the audit actor); absent for operations that predate it. */
  requestedBy: z.string().nullable().optional(),
  /** Failing gates the operator forced past when confirming. */
  forcedGates: z.array(z.string()).optional(),
  /** The failover plan the operation committed to (GET /operations/{id} only; lists leave it out). */
  plan: FailoverPlan.optional(),
})
export type Operation = z.infer<typeof Operation>

export const OperationList = z.object({ operations: z.array(Operation) })
export const OperationsQuery = z.object({ status: OperationStatus.optional() })
export const OperationParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not an operation id') })
