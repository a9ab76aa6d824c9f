import { systemEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(systemEndpoints.audit, async ({ runtime, query }) => ({ entries: await runtime.audit.query(query) }))
