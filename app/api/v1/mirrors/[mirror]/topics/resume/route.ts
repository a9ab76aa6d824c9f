import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/engine/api-adapter'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(mirrorEndpoints.resumeMirrorTopics, ({ runtime, params, body }) => mirrorApiOf(runtime).resume(params.mirror, body.topics))
