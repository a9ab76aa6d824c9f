import { SERVED_ENDPOINTS, systemEndpoints } from '@/lib/api/endpoints'
import { openApiDocument } from '@/server/http/openapi'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(systemEndpoints.openapi, ({ runtime }) =>
  Response.json(openApiDocument(SERVED_ENDPOINTS, { version: runtime.version })),
)
