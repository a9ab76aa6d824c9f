import 'server-only'
import type { MirrorSummary } from '@/lib/api/mirrors'
import { currentRpoStatus } from '@/lib/mirror/objective-compliance'
import type { MirrorEngine } from '@/server/engine/engine'

/**
 * A mirror's recovery point against its RPO objective now (the summary's `objectives`, GET /attention's
 * `rpoBreaches`): null without an RPO objective or once every partition failed over. From the figures the alerts
 * and the failover plan read (mirror-figures.ts), so the overview's edge, its "Needs attention" and the API agree.
 */
export function mirrorRpoStatus(engine: Pick<MirrorEngine, 'mirrorFigures'>, name: string): NonNullable<MirrorSummary['objectives']> | null {
  const { rpo, rpoObjective, partitionsByState } = engine.mirrorFigures(name)
  // A failed-over mirror protects nothing any more: no recovery point to hold to the objective.
  const protectedPartitions = Object.entries(partitionsByState).reduce((sum, [state, count]) => sum + (state === 'STOPPED' || state === 'STOPPING' ? 0 : (count ?? 0)), 0)
  if (rpoObjective === null || protectedPartitions === 0) return null
  const status = currentRpoStatus(rpo, { ...(rpoObjective.records === null ? {} : { rpoRecords: rpoObjective.records }), ...(rpoObjective.seconds === null ? {} : { rpoSeconds: rpoObjective.seconds }) })
  return status === null ? null : { status, rpoRecords: rpoObjective.records, rpoSeconds: rpoObjective.seconds, records: rpo.records, seconds: rpo.seconds, known: rpo.known }
}
