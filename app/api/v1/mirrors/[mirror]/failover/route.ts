import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { conditionsOf } from '@/server/http/conditional'
import { reply, requesterOf, route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(mirrorEndpoints.failover, async ({ runtime, params, body, audit, request, principal }) => {
  const api = mirrorApiOf(runtime)
  if (body.dryRun) return reply(200, { plan: await api.failoverPlan(params.mirror, body.topics, conditionsOf(request), body) })
  const accepted = await api.failover(params.mirror, body, conditionsOf(request), requesterOf(principal))
  // The audit entry keeps the plan the operation committed to, as a dry run's keeps the plan it showed,
  // and links to the operation it started. The type, and the RPO figures at that moment (what an operator who
  // forced "rpo-objective" accepted), are in that plan (plan.type, plan.rpo); the forced gates in the request.
  audit.plan = accepted.plan
  audit.operation = accepted.operation
  return accepted
})
