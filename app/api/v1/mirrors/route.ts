import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { withOtherInstances } from '@/server/api/mirror-list'
import { seesMirror } from '@/lib/auth/visibility'
import { reply, route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some mirrors sees those only (lib/auth/visibility.ts). Several instances: every instance's mirrors.
export const GET = route(mirrorEndpoints.listMirrors, async ({ runtime, query, principal, request }) => {
  const list = await withOtherInstances(runtime.ha, request, principal, mirrorApiOf(runtime).list(query))
  return { ...list, mirrors: list.mirrors.filter((mirror) => seesMirror(principal.grants, mirror.name)) }
})

export const POST = route(mirrorEndpoints.createMirror, async ({ runtime, body, audit }) => {
  audit.target = `/mirrors/${body.name}`
  const api = mirrorApiOf(runtime)
  if (body.dryRun) return reply(200, { plan: await api.planCreate(body) })
  return api.create(body)
})
