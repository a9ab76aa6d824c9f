import 'server-only'
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { MirrorEngine } from '@/server/engine/engine'
import type { FailoverOperation, PartitionSnapshot } from '@/server/engine/types'
import type { IsolatedSource } from './isolated-source'

/**
 * The real failover, run on a drill's copy: a mirroring engine of its own over the sandbox (as the mirror's
 * destination) and the isolated source (as its source, unreachable), which replays the copied `__mirror_state`
 * and so holds the mirror as it stood when the copy was taken. Then exactly what an operator does in a disaster:
 * the preflight (the dry run the wizard shows), and the failover with the confirmation and the failing warning
 * gates forced (the source cannot be reached, by design) — the engine's own STOPPING sequence, step by step, with
 * its ABORT markers, leader-epoch bump and MIRROR_PID_RESET on the copy's logs.
 */

export interface SandboxFailover {
  readonly plan: FailoverPreflight
  readonly operation: FailoverOperation
  /** The copy's partitions after the failover, as its engine shows them (last mirror positions). */
  readonly partitions: ReadonlyArray<Readonly<PartitionSnapshot>>
}

/** A failover the sandbox's engine cannot finish within this is stuck, not slow (10,000 partitions take seconds). */
const FAILOVER_TIMEOUT_MS = 2 * 60_000

export async function failOverSandbox(input: {
  mirror: string
  sourceCluster: string
  destinationCluster: string
  sandbox: EmbeddedCluster
  isolated: IsolatedSource
  topics: readonly string[]
  log?: (message: string, fields: Record<string, unknown>) => void
  /** Production mirroring's turn (drill-checks.ts Pace): awaited before each log write of the STOPPING sequence. */
  pace?: () => Promise<void> | undefined
  /** Called as each step ends (the drill logs where its RTO went). */
  lap?: (step: string) => void
}): Promise<SandboxFailover> {
  const { sandbox, isolated } = input
  const host = input.pace ? pacedHost(sandbox, input.pace) : sandbox
  const engine = new MirrorEngine({
    clusters: {
      names: () => [input.destinationCluster],
      get: (name) => (name === input.destinationCluster ? { source: sandbox, host } : name === input.sourceCluster ? { source: isolated, host: isolated } : undefined),
    },
    log: input.log,
  })
  try {
    await engine.start()
    input.lap?.('engineStart')
    // The restores of the replayed partitions (each asks the unreachable source and fails, as in a disaster).
    await engine.settle()
    input.lap?.('settle')
    const plan = await engine.failoverPlan(input.mirror, [...input.topics])
    input.lap?.('preflight')
    const force = plan.gates.filter((gate) => !gate.ok && gate.severity === 'warning').map((gate) => gate.name)
    const { operation } = await engine.failover(input.mirror, { topics: [...input.topics], confirm: input.mirror, force, requestedBy: { actor: 'drill', role: null } })
    const deadline = Date.now() + FAILOVER_TIMEOUT_MS
    let finished = await engine.awaitOperation(operation.id)
    // A partition whose stop goes on by itself (a retried step) settles through the engine's ticks.
    while (finished.status === 'running' && Date.now() < deadline) {
      await engine.tick()
      await new Promise((resolve) => setTimeout(resolve, 50))
      finished = engine.getOperation(operation.id)
    }
    input.lap?.('stopping')
    return { plan, operation: finished, partitions: engine.partitions(input.mirror) }
  } finally {
    await engine.close()
  }
}

/** The log writes of a STOPPING sequence: one partition's epoch bump, ABORT markers, MIRROR_PID_RESET. */
const PACED_WRITES: ReadonlySet<PropertyKey> = new Set(['bumpLeaderEpoch', 'appendAbortMarkers', 'appendMirrorPidReset'])

/**
 * The sandbox as its engine's host, each STOPPING write waiting first while production's lag is past its
 * budget (lib/drill/pacing.ts): the failover of 2,000 partitions holds the event loop in short turns that
 * production's fetches otherwise wait behind. Everything else is the sandbox's own, bound to it.
 */
function pacedHost(sandbox: EmbeddedCluster, pace: () => Promise<void> | undefined): EmbeddedCluster {
  return new Proxy(sandbox, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      const method = value as (...args: unknown[]) => unknown
      if (!PACED_WRITES.has(property)) return method.bind(target)
      return async (...args: unknown[]) => {
        const turn = pace()
        if (turn) await turn
        return method.apply(target, args)
      }
    },
  })
}
