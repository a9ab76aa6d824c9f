import { drillEndpoints } from '@/lib/api/endpoints'
import { listDrills, startDrill } from '@/server/api/drill-api'
import { requesterOf, route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(drillEndpoints.listMirrorDrills, ({ runtime, params }) => listDrills(runtime, params.mirror))

export const POST = route(drillEndpoints.startDrill, ({ runtime, params, body, principal }) => startDrill(runtime, params.mirror, body, requesterOf(principal)))
