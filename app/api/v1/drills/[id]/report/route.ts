import { drillEndpoints } from '@/lib/api/endpoints'
import { drillReport, getDrill } from '@/server/api/drill-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(
  drillEndpoints.drillReport,
  ({ runtime, params, query, requireGrant }) => {
    requireGrant({ mirror: getDrill(runtime, params.id).mirror })
    return drillReport(runtime, params.id, query.format ?? 'json')
  },
  { scope: 'handler' },
)
