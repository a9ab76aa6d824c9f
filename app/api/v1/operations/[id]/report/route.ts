import { mirrorEndpoints } from '@/lib/api/endpoints'
import { buildReport, reportResponse } from '@/server/api/operation-report'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.operationReport, async ({ runtime, params, query }) => reportResponse(await buildReport(runtime, params.id), query.format ?? 'json'))
