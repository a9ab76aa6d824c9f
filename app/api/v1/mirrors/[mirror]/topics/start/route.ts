import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { conditionsOf } from '@/server/http/conditional'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(mirrorEndpoints.startMirrorTopics, async ({ runtime, params, body, request }) => {
  const api = mirrorApiOf(runtime)
  if (body.dryRun) return { plan: await api.planStart(params.mirror, body, conditionsOf(request)) }
  return api.start(params.mirror, body, conditionsOf(request))
})
