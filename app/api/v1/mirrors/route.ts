import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { reply, route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.listMirrors, ({ runtime, query }) => mirrorApiOf(runtime).list(query))

export const POST = route(mirrorEndpoints.createMirror, async ({ runtime, body, audit }) => {
  audit.target = `/mirrors/${body.name}`
  const api = mirrorApiOf(runtime)
  if (body.dryRun) return reply(200, { plan: await api.planCreate(body) })
  return api.create(body)
})
