import { mirrorEndpoints } from '@/lib/api/endpoints'
import { buildReport } from '@/server/api/operation-report'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.operationReport, ({ runtime, params }) => buildReport(runtime, params.id))
