import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/engine/api-adapter'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.getMirror, ({ runtime, params }) => mirrorApiOf(runtime).get(params.mirror))

export const PATCH = route(mirrorEndpoints.patchMirror, ({ runtime, params, body }) => mirrorApiOf(runtime).updateConfig(params.mirror, body.config))

export const DELETE = route(mirrorEndpoints.deleteMirror, ({ runtime, params }) => mirrorApiOf(runtime).delete(params.mirror))
