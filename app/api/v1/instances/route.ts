import { systemEndpoints } from '@/lib/api/endpoints'
import { instancesOf } from '@/server/api/instances-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(systemEndpoints.instances, ({ runtime, principal }) => instancesOf({ version: runtime.version, engine: runtime.engine, ha: runtime.ha }, principal.grants))
