import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/engine/api-adapter'
import { reply, route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(mirrorEndpoints.failover, async ({ runtime, params, body, audit, principal }) => {
  const api = mirrorApiOf(runtime)
  if (body.dryRun) return reply(200, { plan: await api.failoverPlan(params.mirror, body.topics) })
  const accepted = await api.failover(params.mirror, body, principal.actor)
  // The audit entry keeps the plan the operation committed to, as a dry run's keeps the plan it showed.
  audit.plan = accepted.plan
  return accepted
})
