import { mirrorEndpoints } from '@/lib/api/endpoints'
import { buildReport, reportResponse } from '@/server/api/operation-report'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(
  mirrorEndpoints.operationReport,
  async ({ runtime, params, query, requireGrant }) => {
    requireGrant({ mirror: mirrorApiOf(runtime).operation(params.id).mirror })
    return reportResponse(await buildReport(runtime, params.id), query.format ?? 'json')
  },
  { scope: 'handler' },
)
