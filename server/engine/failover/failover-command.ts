import 'server-only'
import { decideGates } from '@/lib/failover/gate-forcing'
import { planOrRefuse } from '../commands/preconditions'
import { selectPartitions } from '../commands/topic-commands'
import type { EngineContext } from '../engine-context'
import { EngineError } from '../errors'
import { errorMessage } from '../failure-classification'
import { toFailoverPlan } from '../operations/failover-plan-view'
import type { Operation, OperationRequester, PartitionRuntime } from '../types'
import { gateRefusal } from './failover-gates'
import { failoverPlan } from './failover-planner'

const FAILOVER_CONCURRENCY = 256

export interface FailoverRequestInput {
  topics?: string[]
  confirm?: string
  force?: string[]
  requestedBy?: OperationRequester
}

/**
 * The failover (STOPPING) of the selected partitions, as an operation that runs on. The operation is
 * durable before this resolves (so before the caller's 202): a crash from then on resumes it at restart.
 */
export async function failover(ctx: EngineContext, mirrorName: string, request: FailoverRequestInput): Promise<{ operation: Operation }> {
  const mirror = ctx.state.require(mirrorName)
  if (request.confirm !== mirrorName) {
    throw new EngineError('CONFIRMATION_REQUIRED', `type the mirror name "${mirrorName}" as confirm to fail over`)
  }
  const named = request.topics !== undefined && request.topics.length > 0
  planOrRefuse('stop', selectPartitions(mirror, request.topics), { named, mirror: mirrorName })
  const plan = await failoverPlan(ctx, mirrorName, request.topics)
  const gates = decideGates(plan.gates, request.force)
  if (!gates.canProceed) throw gateRefusal(gates, plan.gates)
  // Planned again: the preflight awaited the clusters, and a partition may have moved meanwhile.
  const { apply: runtimes } = planOrRefuse('stop', selectPartitions(mirror, request.topics), { named, mirror: mirrorName })
  const operation = await ctx.operations.accept({
    mirror: mirrorName,
    plan: toFailoverPlan(plan),
    requestedBy: request.requestedBy ?? null,
    forcedGates: gates.forced.map((gate) => gate.name),
    runtimes,
  })
  return { operation }
}

/** Sends the stop to each partition, a bounded number at once; one partition's failure never stops the rest. */
export async function stopPartitions(ctx: EngineContext, mirrorName: string, runtimes: PartitionRuntime[], onEach: (runtime: PartitionRuntime) => void): Promise<void> {
  const mirror = ctx.state.get(mirrorName)
  if (!mirror) return
  const queue = [...runtimes]
  const worker = async () => {
    for (let runtime = queue.shift(); runtime; runtime = queue.shift()) {
      const current = runtime
      await ctx.runner
        .withLock(current, () => ctx.runner.dispatch(mirror.definition, current, { type: 'stopRequested' }, 'failover requested'))
        .catch((error: unknown) => ctx.log('failover of a partition failed', { topic: current.topic, partition: current.partition, error: errorMessage(error) }))
      onEach(current)
    }
  }
  await Promise.all(Array.from({ length: Math.min(FAILOVER_CONCURRENCY, Math.max(1, queue.length)) }, worker))
}
