/**
 * The look of everything that runs and ends (operations, drills, demo runs and workloads), of how an audited
 * request ended and of why a partition needs attention: one table per status kind, each `satisfies Record<Status, StatusStyle>`, so a status the API adds
 * fails to compile until it is given a look here. Their tones are the partition states' (state-style.ts):
 * a running operation is the same blue as a STOPPING partition, a failed one the same red as FAILED, so the
 * dashboard speaks one colour language. The glyph and the word keep a status from being shown by colour alone.
 */
import type { AttentionItem } from '../api/attention'
import type { AuditOutcome } from '../api/audit'
import type { RunStatus, Workload } from '../api/demo'
import type { DrillStatus } from '../api/drills'
import type { OperationStatus } from '../api/operations'
import type { SwitchoverPhase } from '../failover/switchover'
import type { MinuteVerdict } from '../mirror/objective-compliance'
import type { PartitionVerificationStatus, VerificationStatus } from '../api/verifications'
import type { LagTrendDirection } from './lag-series'
import { STATE_STYLE, type StateTone } from './state-style'

export interface StatusStyle {
  /** The word shown in the badge (sentence case; callers lower-case it inside a sentence). */
  readonly label: string
  /** A glyph that tells the status apart without colour. */
  readonly icon: string
  readonly tone: StateTone
  /** Still moving: the badge's glyph pulses (unless the reader asked for reduced motion). */
  readonly active?: boolean
}

export const OPERATION_STATUS_STYLE = {
  running: { label: 'Running', icon: '◔', tone: 'progress', active: true },
  succeeded: { label: 'Succeeded', icon: '✓', tone: 'healthy' },
  failed: { label: 'Failed', icon: '✕', tone: 'danger' },
  // A switchover that kept its promise by undoing itself (nothing lost): not a fault, like its phase below.
  rolledBack: { label: 'Rolled back', icon: '↶', tone: 'neutral' },
} as const satisfies Record<OperationStatus, StatusStyle>

/** A planned switchover's phases (lib/failover/switchover.ts); a rollback is the switchover keeping its promise, not a fault: neutral. */
export const SWITCHOVER_PHASE_STYLE = {
  fenceSource: { label: 'Fencing the source', icon: '◔', tone: 'progress', active: true },
  drain: { label: 'Draining', icon: '◔', tone: 'progress', active: true },
  stopping: { label: 'Stopping', icon: '◔', tone: 'progress', active: true },
  done: { label: 'Switched over', icon: '✓', tone: 'healthy' },
  rollingBack: { label: 'Rolling back', icon: '↶', tone: 'paused', active: true },
  rolledBack: { label: 'Rolled back', icon: '↶', tone: 'neutral' },
} as const satisfies Record<SwitchoverPhase, StatusStyle>

/** A mirror's recovery point against its RPO objective; unknown (a source silent) is a warning, never read as met. */
export const RPO_STATUS_STYLE = {
  met: { label: 'RPO met', icon: '✓', tone: 'healthy' },
  breached: { label: 'RPO breached', icon: '✕', tone: 'danger' },
  unknown: { label: 'RPO unknown', icon: '?', tone: 'paused' },
} as const satisfies Record<MinuteVerdict, StatusStyle>

/** A drill fails over a copy and measures; cancelling it is the operator's choice, not a fault: neutral. */
export const DRILL_STATUS_STYLE = {
  running: { label: 'Running', icon: '◔', tone: 'progress', active: true },
  succeeded: { label: 'Succeeded', icon: '✓', tone: 'healthy' },
  failed: { label: 'Failed', icon: '✕', tone: 'danger' },
  cancelled: { label: 'Cancelled', icon: '⊘', tone: 'neutral' },
} as const satisfies Record<DrillStatus, StatusStyle>

/** A verification: identical is healthy, a difference is an error, one that could not finish a warning. */
export const VERIFICATION_STATUS_STYLE = {
  running: { label: 'Verifying', icon: '◔', tone: 'progress', active: true },
  passed: { label: 'Identical', icon: '✓', tone: 'healthy' },
  mismatched: { label: 'Mismatches', icon: '≠', tone: 'danger' },
  failed: { label: 'Not finished', icon: '!', tone: 'paused' },
  cancelled: { label: 'Cancelled', icon: '⊘', tone: 'neutral' },
} as const satisfies Record<VerificationStatus, StatusStyle>

/** One partition of a verification. */
export const PARTITION_VERIFICATION_STATUS_STYLE = {
  pending: { label: 'Waiting', icon: '○', tone: 'neutral' },
  running: { label: 'Comparing', icon: '◔', tone: 'progress', active: true },
  identical: { label: 'Identical', icon: '✓', tone: 'healthy' },
  mismatched: { label: 'Mismatches', icon: '≠', tone: 'danger' },
  failed: { label: 'Not compared', icon: '!', tone: 'paused' },
  cancelled: { label: 'Cancelled', icon: '⊘', tone: 'neutral' },
} as const satisfies Record<PartitionVerificationStatus, StatusStyle>

/** A demo scenario's run and each of its steps. */
export const RUN_STATUS_STYLE = {
  pending: { label: 'Pending', icon: '○', tone: 'neutral' },
  running: { label: 'Running', icon: '◔', tone: 'progress', active: true },
  succeeded: { label: 'Succeeded', icon: '✓', tone: 'healthy' },
  failed: { label: 'Failed', icon: '✕', tone: 'danger' },
} as const satisfies Record<RunStatus, StatusStyle>

/** A demo workload (a live producer or consumer group): running, paused by the operator, or failing its steps. */
export type WorkloadState = 'running' | 'paused' | 'failing'

export const WORKLOAD_STATE_STYLE = {
  running: { label: 'Running', icon: '●', tone: 'healthy' },
  paused: { label: 'Paused', icon: '❚❚', tone: 'paused' },
  failing: { label: 'Failing', icon: '✕', tone: 'danger' },
} as const satisfies Record<WorkloadState, StatusStyle>

/** Paused wins: a paused workload's last error is no longer what it does. */
export function workloadState(workload: Pick<Workload, 'paused' | 'lastError'>): WorkloadState {
  return workload.paused ? 'paused' : workload.lastError !== null ? 'failing' : 'running'
}

/** Why the overview lists a partition; a FAILED or paused one looks as its state does everywhere. */
export const ATTENTION_KIND_STYLE = {
  failed: { label: 'FAILED', icon: STATE_STYLE.FAILED.icon, tone: STATE_STYLE.FAILED.tone },
  lagGrowing: { label: 'Lag growing', icon: '▲', tone: 'paused' },
  staleFetch: { label: 'Stale fetch', icon: '◷', tone: 'neutral' },
  paused: { label: 'Paused', icon: STATE_STYLE.PAUSED.icon, tone: STATE_STYLE.PAUSED.tone },
} as const satisfies Record<AttentionItem['kind'], StatusStyle>

/** How an audited request ended: a refusal (validation, role, precondition) is a warning, a failure an error. */
export const AUDIT_OUTCOME_STYLE = {
  ok: { label: 'ok', icon: '✓', tone: 'healthy' },
  rejected: { label: 'rejected', icon: '⊘', tone: 'paused' },
  failed: { label: 'failed', icon: '✕', tone: 'danger' },
} as const satisfies Record<AuditOutcome, StatusStyle>

/** Which way a mirror's total lag heads: growing is a warning, shrinking is the mirror catching up. */
export const LAG_TREND_STYLE = {
  growing: { label: 'growing', icon: '▲', tone: 'paused' },
  shrinking: { label: 'shrinking', icon: '▼', tone: 'healthy' },
  steady: { label: 'steady', icon: '→', tone: 'neutral' },
  unknown: { label: 'unknown', icon: '?', tone: 'danger' },
  /** Not known yet: no fetch of the mirror has been answered (created moments ago), not an incident. */
  pending: { label: 'pending', icon: '…', tone: 'neutral' },
  /** No partition mirrors (a failed-over mirror): the chart is history. */
  notMirroring: { label: 'not mirroring', icon: '■', tone: 'neutral' },
} as const satisfies Record<LagTrendDirection | 'notMirroring' | 'pending', StatusStyle>

/** A Mirrorboard instance of the group (GET /api/v1/instances): a dead one's mirrors have gone to the others. */
export const INSTANCE_STATUS_STYLE = {
  alive: { label: 'Alive', icon: '●', tone: 'healthy' },
  dead: { label: 'Dead', icon: '✕', tone: 'danger' },
  /** Another instance while the control cluster does not answer this one: its heartbeats cannot be read here. */
  unknown: { label: 'Not known', icon: '?', tone: 'neutral' },
  /** This instance while the control cluster does not answer it: it runs, the group cannot see it. */
  cutOff: { label: 'Cut off', icon: '⚠', tone: 'paused' },
} as const satisfies Record<'alive' | 'dead' | 'unknown' | 'cutOff', StatusStyle>

/** The control cluster as an instance sees it (GET /instances' `control`). */
export const CONTROL_CLUSTER_STYLE = {
  reachable: { label: 'Reachable', icon: '●', tone: 'healthy' },
  unreachable: { label: 'Unreachable', icon: '✕', tone: 'danger' },
} as const satisfies Record<'reachable' | 'unreachable', StatusStyle>
