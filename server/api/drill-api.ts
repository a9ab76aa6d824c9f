import 'server-only'
import type { Drill, DrillList, StartDrillRequest } from '@/lib/api/drills'
import type { Drills } from '../drills/drills'
import type { OperationRequester } from '../engine/types'

/** The drill endpoints over the drills (server/drills/): every refusal happens before the 202, changing nothing. */
export interface DrillApiDeps {
  drills: Drills
}

export async function startDrill(deps: DrillApiDeps, mirror: string, body: StartDrillRequest, requestedBy: OperationRequester): Promise<{ drill: string }> {
  const drill = await deps.drills.start(mirror, { ...(body.topics === undefined ? {} : { topics: body.topics }), requestedBy })
  return { drill: drill.id }
}

export function listDrills(deps: DrillApiDeps, mirror: string): DrillList {
  return deps.drills.list(mirror)
}

export function getDrill(deps: DrillApiDeps, id: string): Drill {
  return deps.drills.get(id)
}

export function cancelDrill(deps: DrillApiDeps, id: string): Promise<Drill> {
  return deps.drills.cancel(id)
}
