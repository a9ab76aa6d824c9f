import 'server-only'
import type { Drill, DrillList, StartDrillRequest } from '@/lib/api/drills'
import { objectivesOf } from '@/lib/failover/objectives'
import { drillReportMarkdown } from '@/lib/drill/report-markdown'
import type { Drills } from '../drills/drills'
import type { MirrorEngine } from '../engine/engine'
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

/** The drill as JSON, or its Markdown report as a download (the objectives as the mirror sets them now). */
export function drillReport(deps: DrillApiDeps & { engine: Pick<MirrorEngine, 'getMirror'> }, id: string, format: 'json' | 'md', now = Date.now()): Drill | Response {
  const drill = deps.drills.get(id)
  if (format === 'json') return drill
  let objectives = null
  try {
    objectives = objectivesOf(deps.engine.getMirror(drill.mirror).config)
  } catch {
    // The mirror was deleted since: the report stands without objectives.
  }
  return new Response(drillReportMarkdown(drill, { objectives, generatedAt: now }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8', 'Content-Disposition': `attachment; filename="drill-report-${drill.id}.md"`, 'Cache-Control': 'no-store' },
  })
}
