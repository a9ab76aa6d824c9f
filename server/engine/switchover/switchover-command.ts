import 'server-only'
import { decideGates } from '@/lib/failover/gate-forcing'
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_TRANSACTION_GRACE_MS, type FenceMethod } from '@/lib/failover/switchover'
import type { FailoverGate, FailoverPreflight } from '@/lib/mirror/failover-plan'
import { withTimeout } from '@/server/util/with-timeout'
import { planOrRefuse } from '../commands/preconditions'
import { selectPartitions } from '../commands/topic-commands'
import { type ClusterAccess, type EngineClock, type OperationsAccess, type PartitionStore } from '../engine-context'
import { EngineError } from '../errors'
import { gateRefusal } from '../failover/failover-gates'
import { failoverPlan } from '../failover/failover-planner'
import { toFailoverPlan } from '../operations/failover-plan-view'
import type { FailoverOperation, OperationRequester } from '../types'

/**
 * A planned switchover (issue #34): checked and planned here, accepted as a durable `switchover` operation
 * whose phases (switchover-phases.ts) fence the source and drain before the stops. Refused rather than
 * started when it could not keep its promise of nothing lost: the source unreachable (SOURCE_UNAVAILABLE,
 * pointing at `unplanned`), a partition that is not MIRRORING (it would never drain).
 */

export interface SwitchoverRequestInput {
  topics?: string[]
  confirm?: string
  force?: string[]
  drainTimeoutMs?: number
  transactionGraceMs?: number
  requestedBy?: OperationRequester
}

export interface SwitchoverCommandPlan {
  readonly mirror: string
  readonly topics: readonly string[] | undefined
  readonly plan: FailoverPreflight
  readonly fenceMethod: FenceMethod
  readonly drainTimeoutMs: number
  readonly transactionGraceMs: number
  readonly forcedGates: readonly string[]
}

const FENCE_METHOD_TIMEOUT_MS = 5_000

/**
 * The gates a planned switchover is held to: the failover plan's own, except the two about loss (lag and
 * the RPO objective: a switchover waits for lag 0 instead), and `write-fence`, which fails (a warning the
 * operator must force) where the source cannot refuse writes: the operator stops the producers, and the
 * drain checks the source's log ends stand still.
 */
export function switchoverGates(plan: FailoverPreflight, fenceMethod: FenceMethod, sourceCluster: string): FailoverGate[] {
  const gates = plan.gates.filter((gate) => gate.name !== 'lag-threshold' && gate.name !== 'rpo-objective')
  gates.push(
    fenceMethod === 'none'
      ? {
          name: 'write-fence',
          ok: false,
          severity: 'warning',
          detail: `${sourceCluster} has no authorizer: writes cannot be refused there. Stop the producers first; the drain waits until the source's log ends stand still`,
        }
      : {
          name: 'write-fence',
          ok: true,
          severity: 'warning',
          detail: fenceMethod === 'broker' ? `${sourceCluster} refuses client writes with TOPIC_WRITE_FENCED during the switchover` : `DENY WRITE ACLs for User:* on ${sourceCluster} refuse client writes (super users bypass them)`,
        },
  )
  return gates
}

export async function planSwitchover(ctx: ClusterAccess & EngineClock & PartitionStore, mirrorName: string, request: SwitchoverRequestInput, options: { dryRun: boolean }): Promise<SwitchoverCommandPlan> {
  const mirror = ctx.state.require(mirrorName)
  if (!options.dryRun && request.confirm !== mirrorName) {
    throw new EngineError('CONFIRMATION_REQUIRED', `type the mirror name "${mirrorName}" as confirm to switch over`)
  }
  const named = request.topics !== undefined && request.topics.length > 0
  const selected = selectPartitions(mirror, request.topics)
  planOrRefuse('stop', selected, { named, mirror: mirrorName })
  const preflight = await failoverPlan(ctx, mirrorName, request.topics)
  const sourceCluster = mirror.definition.sourceCluster
  if (!preflight.gates.some((gate) => gate.name === 'source-reachable' && gate.ok)) {
    throw new EngineError('SOURCE_UNAVAILABLE', `source cluster ${sourceCluster} cannot be reached: a planned switchover needs it to fence and drain; fail over with type "unplanned" instead`, {
      details: { type: 'planned', alternative: 'unplanned' },
    })
  }
  const notMirroring = selected.filter((runtime) => runtime.value.state !== 'MIRRORING')
  if (notMirroring.length > 0) {
    const named = notMirroring.slice(0, 5).map((runtime) => `${runtime.topic}-${runtime.partition} (${runtime.value.state})`)
    throw new EngineError('INVALID_MIRROR_STATE', `a planned switchover drains MIRRORING partitions only: ${named.join(', ')}${notMirroring.length > 5 ? ` and ${notMirroring.length - 5} more` : ''}; recover or resume them, or fail over with type "unplanned"`, {
      details: { partitions: notMirroring.map((runtime) => ({ topic: runtime.topic, partition: runtime.partition, state: runtime.value.state })) },
    })
  }
  const { source } = ctx.clusters.cluster(sourceCluster)
  const fenceMethod: FenceMethod = source.writeFenceMethod === undefined ? 'none' : await withTimeout(source.writeFenceMethod(), FENCE_METHOD_TIMEOUT_MS).catch(() => 'none' as const)
  const plan: FailoverPreflight = { ...preflight, gates: switchoverGates(preflight, fenceMethod, sourceCluster) }
  const decision = decideGates(plan.gates, request.force ?? (options.dryRun ? undefined : []))
  if (!options.dryRun && !decision.canProceed) throw gateRefusal(decision, plan.gates)
  return {
    mirror: mirrorName,
    topics: request.topics,
    plan: { ...plan, canProceed: decision.blocking.length === 0 },
    fenceMethod,
    drainTimeoutMs: request.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
    transactionGraceMs: request.transactionGraceMs ?? DEFAULT_TRANSACTION_GRACE_MS,
    forcedGates: decision.forced.map((gate) => gate.name),
  }
}

/** The switchover's plan in the API's shape: the failover plan with its type and fence. */
export function switchoverPlanView(planned: SwitchoverCommandPlan) {
  return {
    ...toFailoverPlan(planned.plan),
    type: 'planned' as const,
    switchover: { fenceMethod: planned.fenceMethod, drainTimeoutMs: planned.drainTimeoutMs, transactionGraceMs: planned.transactionGraceMs },
  }
}

/** Accepts the switchover: durable (phase fenceSource) before this resolves, so before the caller's 202. */
export async function applySwitchover(ctx: OperationsAccess & PartitionStore, planned: SwitchoverCommandPlan, requestedBy: OperationRequester | null): Promise<{ operation: FailoverOperation }> {
  const mirror = ctx.state.require(planned.mirror)
  const topics = planned.topics === undefined ? undefined : [...planned.topics]
  const { apply: runtimes } = planOrRefuse('stop', selectPartitions(mirror, topics), { named: topics !== undefined && topics.length > 0, mirror: planned.mirror })
  const operation = await ctx.operations.accept({
    kind: 'switchover',
    type: 'planned',
    mirror: planned.mirror,
    plan: switchoverPlanView(planned),
    requestedBy,
    forcedGates: [...planned.forcedGates],
    runtimes,
    switchover: {
      phase: 'fenceSource',
      fenceMethod: planned.fenceMethod,
      drainTimeoutMs: planned.drainTimeoutMs,
      transactionGraceMs: planned.transactionGraceMs,
      fencedAt: null,
      drainStartedAt: null,
      drainedAt: null,
      stoppedAt: null,
      rolledBackAt: null,
      reason: null,
      transactionsAbortedAtSource: 0,
      groupsActiveOnSource: [],
      drain: null,
      recordsLost: null,
    },
  })
  return { operation }
}
