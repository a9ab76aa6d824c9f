import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { conditionsOf } from '@/server/http/conditional'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(mirrorEndpoints.recoverMirrorTopics, ({ runtime, params, body, request }) => mirrorApiOf(runtime).recover(params.mirror, body, conditionsOf(request)))
