import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { conditionsOf, withStateVersion } from '@/server/http/conditional'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.getMirror, ({ runtime, params }) => {
  const mirror = mirrorApiOf(runtime).get(params.mirror)
  return withStateVersion(mirror, mirror.stateVersion)
})

export const PATCH = route(mirrorEndpoints.patchMirror, ({ runtime, params, body, request }) =>
  mirrorApiOf(runtime).updateConfig(params.mirror, body.config, conditionsOf(request)),
)

export const DELETE = route(mirrorEndpoints.deleteMirror, ({ runtime, params, request }) => mirrorApiOf(runtime).delete(params.mirror, conditionsOf(request)))
