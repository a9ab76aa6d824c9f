import { drillEndpoints } from '@/lib/api/endpoints'
import { getDrill } from '@/server/api/drill-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(
  drillEndpoints.getDrill,
  ({ runtime, params, requireGrant }) => {
    const drill = getDrill(runtime, params.id)
    requireGrant({ mirror: drill.mirror })
    return drill
  },
  { scope: 'handler' },
)
