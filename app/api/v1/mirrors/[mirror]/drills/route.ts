import { drillEndpoints } from '@/lib/api/endpoints'
import { listDrills, startDrill } from '@/server/api/drill-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(drillEndpoints.listMirrorDrills, ({ runtime, params }) => listDrills(runtime, params.mirror))

export const POST = route(drillEndpoints.startDrill, ({ runtime, params, body, principal }) => startDrill(runtime, params.mirror, body, { actor: principal.actor, role: principal.role }))
