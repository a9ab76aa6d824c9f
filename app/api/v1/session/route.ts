import { sessionEndpoints } from '@/lib/api/endpoints'
import { REDACTED, reply, route } from '@/server/http/route'
import { sessionBody } from '@/server/http/session-body'

export const dynamic = 'force-dynamic'

export const POST = route(sessionEndpoints.createSession, async ({ body, request, runtime, audit }) => {
  const { principal, setCookie } = await runtime.auth.login(body.token, request)
  audit.actor = { actor: principal.actor, role: principal.role, actorName: principal.actorName }
  return reply(200, sessionBody(principal), { 'Set-Cookie': setCookie })
}, { auditRequest: () => ({ token: REDACTED }) })

export const GET = route(sessionEndpoints.getSession, ({ principal }) => sessionBody(principal))

export const DELETE = route(sessionEndpoints.deleteSession, async ({ request, runtime }) =>
  new Response(null, { status: 204, headers: { 'Set-Cookie': await runtime.auth.logout(request), 'Cache-Control': 'no-store' } }),
)
