import 'server-only'
import type { GateDecision } from '@/lib/failover/gate-forcing'
import type { FailoverGate } from '@/lib/mirror/failover-plan'
import { describeRpo, describeRpoObjective } from '@/lib/failover/rpo'
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'
import { EngineError } from '../errors'

/**
 * The refusal of an unplanned failover that would lose more than the mirror's RPO objective (or an unknown
 * amount): RPO_OBJECTIVE_EXCEEDED, with the figures, until the request forces `rpo-objective`.
 */
export function rpoRefusal(mirror: string, plan: FailoverPreflight): EngineError {
  const rpo = plan.rpo!
  const objective = describeRpoObjective(rpo.objective)
  return new EngineError(
    'RPO_OBJECTIVE_EXCEEDED',
    `failing over ${mirror} now would lose ${describeRpo(rpo)}, ${rpo.status === 'breached' ? 'over' : 'not provably within'} its recovery-point objective (${objective}); wait for the mirror to catch up, switch over with type "planned", or force "rpo-objective" to accept the loss`,
    { details: { rpo: { ...rpo, objective: { ...rpo.objective } }, gates: plan.gates.map((gate) => ({ ...gate })) } },
  )
}

/**
 * The refusal of a failover whose gates stop it: blocking gates first (forcing cannot help), then the
 * failing warning gates the caller did not force. The details carry every gate, so a client shows the
 * operator what the engine saw at that moment (it may differ from the dry run the operator looked at).
 */
export function gateRefusal(decision: GateDecision<FailoverGate>, gates: readonly FailoverGate[]): EngineError {
  const describe = (gate: FailoverGate) => `${gate.name} (${gate.detail})`
  const message =
    decision.blocking.length > 0
      ? `the failover preflight has a blocking gate: ${decision.blocking.map(describe).join('; ')}`
      : `failing gates not forced: ${decision.unforced.map(describe).join('; ')}; force them by name to fail over anyway`
  return new EngineError('INVALID_MIRROR_STATE', message, {
    details: {
      gates: gates.map((gate) => ({ ...gate })),
      blocking: decision.blocking.map((gate) => gate.name),
      unforced: decision.unforced.map((gate) => gate.name),
    },
  })
}
