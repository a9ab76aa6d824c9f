import 'server-only'
import { decideGates } from '@/lib/failover/gate-forcing'
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'
import { forEachConcurrently } from '@/server/util/cooperative'
import { planOrRefuse } from '../commands/preconditions'
import { selectPartitions } from '../commands/topic-commands'
import type { EngineContext } from '../engine-context'
import { EngineError } from '../errors'
import { errorMessage } from '../failure-classification'
import { toFailoverPlan } from '../operations/failover-plan-view'
import type { FailoverOperation, OperationRequester, PartitionRuntime } from '../types'
import { gateRefusal } from './failover-gates'
import { failoverPlan } from './failover-planner'

const FAILOVER_CONCURRENCY = 256

export interface FailoverRequestInput {
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
export async function planFailover(ctx: EngineContext, mirrorName: string, request: FailoverRequestInput): Promise<FailoverCommandPlan> {
  const mirror = ctx.state.require(mirrorName)
  if (request.confirm !== mirrorName) {
    throw new EngineError('CONFIRMATION_REQUIRED', `type the mirror name "${mirrorName}" as confirm to fail over`)
  }
  const named = request.topics !== undefined && request.topics.length > 0
  planOrRefuse('stop', selectPartitions(mirror, request.topics), { named, mirror: mirrorName })
  const plan = await failoverPlan(ctx, mirrorName, request.topics)
  const gates = decideGates(plan.gates, request.force)
  if (!gates.canProceed) throw gateRefusal(gates, plan.gates)
  return { mirror: mirrorName, topics: request.topics, plan, forcedGates: gates.forced.map((gate) => gate.name) }
}

/**
 * Accepts the planned failover as an operation that runs on. The operation is durable before this resolves
 * (so before the caller's 202): a crash from then on resumes it at restart.
 */
export async function applyFailover(ctx: EngineContext, planned: FailoverCommandPlan, requestedBy: OperationRequester | null): Promise<{ operation: FailoverOperation }> {
  const mirror = ctx.state.require(planned.mirror)
  const topics = planned.topics === undefined ? undefined : [...planned.topics]
  // The stop's preconditions once more: the preflight awaited the clusters, and a partition may have moved meanwhile.
  const { apply: runtimes } = planOrRefuse('stop', selectPartitions(mirror, topics), { named: topics !== undefined && topics.length > 0, mirror: planned.mirror })
  const operation = await ctx.operations.accept({
    mirror: planned.mirror,
    plan: toFailoverPlan(planned.plan),
    requestedBy,
    forcedGates: [...planned.forcedGates],
    runtimes,
  })
  return { operation }
}

/** Plans the failover of the selected partitions, then applies it. */
export async function failover(ctx: EngineContext, mirrorName: string, request: FailoverRequestInput): Promise<{ operation: FailoverOperation }> {
  return applyFailover(ctx, await planFailover(ctx, mirrorName, request), request.requestedBy ?? null)
}

/**
 * Sends the stop to each partition, a bounded number at once; one partition's failure never stops the rest.
 * The workers share a time slice (server/util/cooperative.ts): when many of them resume after one fsync of
 * `__mirror_state`, they give the event loop back between partitions instead of running on for a stall.
 */
export async function stopPartitions(ctx: EngineContext, mirrorName: string, runtimes: PartitionRuntime[], onEach: (runtime: PartitionRuntime) => void): Promise<void> {
  const mirror = ctx.state.get(mirrorName)
  if (!mirror) return
  await forEachConcurrently(runtimes, FAILOVER_CONCURRENCY, async (runtime) => {
    await ctx.runner
      .withLock(runtime, () => ctx.runner.dispatch(mirror.definition, runtime, { type: 'stopRequested' }, 'failover requested'))
      .catch((error: unknown) => ctx.log('failover of a partition failed', { topic: runtime.topic, partition: runtime.partition, error: errorMessage(error) }))
    onEach(runtime)
  })
}
