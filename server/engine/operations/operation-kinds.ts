import 'server-only'
import type { MirrorEvent } from '@/lib/mirror/events'
import { isSettled, shouldStopAfterRestart, stopProgressOf, type PartitionStopView, type StopProgress } from './operation-progress'

/**
 * The kinds of durable operation the tracker runs (operation-tracker.ts), each described by the rules the
 * tracker needs and nothing else: the tracker accepts, persists, drives, follows, resumes and finishes every
 * kind the same way. A new kind is one entry here (and in OPERATION_KINDS, which the operation store
 * validates records against), plus the command that accepts it (failover/failover-command.ts for a failover).
 */

export const OPERATION_KINDS = ['failover', 'switchover'] as const
export type OperationKind = (typeof OPERATION_KINDS)[number]

export interface OperationKindRules {
  /** The event each partition of the operation is sent, and the reason its transition records. */
  readonly event: MirrorEvent
  readonly reason: string
  /** Where a partition stands in the operation, read from its persisted state alone (so a restart rebuilds it). */
  progress(value: PartitionStopView): StopProgress
  /** Settled: nothing will change the partition for this operation without an operator. */
  isSettled(progress: StopProgress): boolean
  /** Whether a restart must send the event again to a partition of an unfinished operation. */
  resendAfterRestart(value: PartitionStopView, acceptedStateEpoch: number): boolean
  /** The outcome once every partition is settled, from the states they settled in. */
  succeeded(states: readonly PartitionStopView['state'][]): boolean
}

export const OPERATION_KIND_RULES: Readonly<Record<OperationKind, OperationKindRules>> = {
  /** Every selected partition through STOPPING to STOPPED (KIP-1279's failover, `lib/mirror/stopping.ts`). */
  failover: {
    event: { type: 'stopRequested' },
    reason: 'failover requested',
    progress: stopProgressOf,
    isSettled,
    resendAfterRestart: shouldStopAfterRestart,
    succeeded: (states) => states.every((state) => state === 'STOPPED'),
  },
  /**
   * A planned switchover (issue #34): the same stops, sent only once the source is fenced and drained
   * (server/engine/switchover/switchover-phases.ts runs those phases before the drive, or rolls back).
   */
  switchover: {
    event: { type: 'stopRequested' },
    reason: 'planned switchover',
    progress: stopProgressOf,
    isSettled,
    resendAfterRestart: shouldStopAfterRestart,
    succeeded: (states) => states.every((state) => state === 'STOPPED'),
  },
}
