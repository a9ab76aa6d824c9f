import 'server-only'
import { fencesLiftedByFailover, type MirrorClusters } from '@/lib/failover/failback'
import type { MirrorDefinition } from '../types'
import type { EngineClusters } from '../cluster-access'
import type { EngineState } from '../state/engine-state'

/**
 * Lifts, on the destination of a failing-over mirror, the switchover fences its failover supersedes on `topic`
 * (lib/failover/failback.ts fencesLiftedByFailover): a failback's failover makes the old source writable again,
 * so the fence its original mirror's planned switchover left there must go. Called by the STOPPING sequence
 * before STOPPED is recorded; idempotent (a restart in between asks again). A cluster that cannot tell its
 * fences (no authorizer) has none to lift.
 */
export async function liftSupersededFences(clusters: EngineClusters, state: EngineState, mirror: MirrorDefinition, topic: string): Promise<void> {
  const destination = clusters.cluster(mirror.destinationCluster).source
  if (destination.writeFences === undefined || destination.unfenceWrites === undefined) return
  const fences = await destination.writeFences()
  if (!fences.some((fence) => fence.topic === topic)) return
  const mirrors = new Map<string, MirrorClusters>([...state.all()].map(({ definition }) => [definition.name, definition]))
  for (const owner of fencesLiftedByFailover(fences, topic, mirror, mirrors)) await destination.unfenceWrites([topic], owner)
}
