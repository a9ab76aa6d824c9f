import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(mirrorEndpoints.cancelOperation, ({ runtime, params, principal }) => mirrorApiOf(runtime).cancelOperation(params.id, principal.actor))
