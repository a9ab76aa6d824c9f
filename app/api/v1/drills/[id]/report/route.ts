import { drillEndpoints } from '@/lib/api/endpoints'
import { drillReport } from '@/server/api/drill-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(drillEndpoints.drillReport, ({ runtime, params, query }) => drillReport(runtime, params.id, query.format ?? 'json'))
