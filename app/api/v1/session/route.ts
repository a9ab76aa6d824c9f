import { sessionEndpoints } from '@/lib/api/endpoints'
import { REDACTED, reply, route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(sessionEndpoints.createSession, async ({ body, request, runtime, audit }) => {
  const { principal, setCookie } = await runtime.auth.login(body.token, request)
  audit.actor = { actor: principal.actor, role: principal.role }
  return reply(200, { role: principal.role, via: principal.via, expiresAt: principal.sessionExpiresAt }, { 'Set-Cookie': setCookie })
}, { auditRequest: () => ({ token: REDACTED }) })

export const GET = route(sessionEndpoints.getSession, ({ principal }) => ({
  role: principal.role,
  via: principal.via,
  expiresAt: principal.sessionExpiresAt,
}))

export const DELETE = route(sessionEndpoints.deleteSession, async ({ request, runtime }) =>
  new Response(null, { status: 204, headers: { 'Set-Cookie': await runtime.auth.logout(request), 'Cache-Control': 'no-store' } }),
)
