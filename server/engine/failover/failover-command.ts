import 'server-only'
import { decideGates } from '@/lib/failover/gate-forcing'
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'
import { planOrRefuse } from '../commands/preconditions'
import { selectPartitions } from '../commands/topic-commands'
import { type ClusterAccess, type EngineClock, type OperationsAccess, type PartitionStore } from '../engine-context'
import { EngineError } from '../errors'
import { toFailoverPlan } from '../operations/failover-plan-view'
import type { FailoverOperation, OperationRequester } from '../types'
import { gateRefusal, rpoRefusal } from './failover-gates'
import { failoverPlan } from './failover-planner'

export interface FailoverRequestInput {
  /** planned: a switchover (switchover/switchover-command.ts); absent or unplanned: this failover. */
  type?: 'planned' | 'unplanned'
  drainTimeoutMs?: number
  transactionGraceMs?: number
  topics?: string[]
  confirm?: string
  force?: string[]
  requestedBy?: OperationRequester
}

/** A failover, validated: the preflight plan (what the dry run answers), the gates it forces, and what it stops. */
export interface FailoverCommandPlan {
  readonly mirror: string
  readonly topics: readonly string[] | undefined
  readonly plan: FailoverPreflight
  readonly forcedGates: readonly string[]
}

/**
 * Every check of a failover, in one place: the confirmation, the stop's preconditions on every selected
 * partition (lib/mirror/preconditions.ts), then the preflight plan (failover-planner.ts, the dry run's
 * answer) and its gates, each failing one refused unless forced. Changes nothing.
 */
export async function planFailover(ctx: ClusterAccess & EngineClock & PartitionStore, mirrorName: string, request: FailoverRequestInput): Promise<FailoverCommandPlan> {
  const mirror = ctx.state.require(mirrorName)
  if (request.confirm !== mirrorName) {
    throw new EngineError('CONFIRMATION_REQUIRED', `type the mirror name "${mirrorName}" as confirm to fail over`)
  }
  const named = request.topics !== undefined && request.topics.length > 0
  planOrRefuse('stop', selectPartitions(mirror, request.topics), { named, mirror: mirrorName })
  const plan = await failoverPlan(ctx, mirrorName, request.topics)
  // Accepting the loss against the RPO objective accepts the records at risk the lag gate counts: one loss, one force.
  const force = request.force?.includes('rpo-objective') && !request.force.includes('lag-threshold') ? [...request.force, 'lag-threshold'] : request.force
  const gates = decideGates(plan.gates, force)
  if (gates.blocking.length > 0) throw gateRefusal(gates, plan.gates)
  // The RPO objective holds even for a caller that forces nothing (whose warnings otherwise only inform):
  // losing more than the mirror promised takes an explicit force, which the audit entry records with the figures.
  const rpo = plan.gates.find((gate) => gate.name === 'rpo-objective')
  if (rpo !== undefined && !rpo.ok && !(request.force ?? []).includes('rpo-objective')) throw rpoRefusal(mirrorName, plan)
  if (!gates.canProceed) throw gateRefusal(gates, plan.gates)
  const forced = gates.forced.map((gate) => gate.name)
  if (rpo !== undefined && !rpo.ok && !forced.includes('rpo-objective')) forced.push('rpo-objective')
  return { mirror: mirrorName, topics: request.topics, plan, forcedGates: forced }
}

/**
 * Accepts the planned failover as an operation that runs on. The operation is durable before this resolves
 * (so before the caller's 202): a crash from then on resumes it at restart.
 */
export async function applyFailover(ctx: OperationsAccess & PartitionStore, planned: FailoverCommandPlan, requestedBy: OperationRequester | null): Promise<{ operation: FailoverOperation }> {
  const mirror = ctx.state.require(planned.mirror)
  const topics = planned.topics === undefined ? undefined : [...planned.topics]
  // The stop's preconditions once more: the preflight awaited the clusters, and a partition may have moved meanwhile.
  const { apply: runtimes } = planOrRefuse('stop', selectPartitions(mirror, topics), { named: topics !== undefined && topics.length > 0, mirror: planned.mirror })
  const operation = await ctx.operations.accept({
    kind: 'failover',
    type: 'unplanned',
    mirror: planned.mirror,
    plan: { ...toFailoverPlan(planned.plan), type: 'unplanned' },
    requestedBy,
    forcedGates: [...planned.forcedGates],
    runtimes,
  })
  return { operation }
}

/** Plans the failover of the selected partitions, then applies it. */
export async function failover(ctx: ClusterAccess & EngineClock & OperationsAccess & PartitionStore, mirrorName: string, request: FailoverRequestInput): Promise<{ operation: FailoverOperation }> {
  return applyFailover(ctx, await planFailover(ctx, mirrorName, request), request.requestedBy ?? null)
}
