import { drillEndpoints } from '@/lib/api/endpoints'
import { cancelDrill } from '@/server/api/drill-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(drillEndpoints.cancelDrill, ({ runtime, params }) => cancelDrill(runtime, params.id))
