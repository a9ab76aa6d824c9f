import { demoEndpoints } from '@/lib/api/endpoints'
import { ApiError } from '@/lib/api/errors'
import { demoOf } from '@/server/api/demo-api'
import { isLoopbackRequest } from '@/server/http/loopback'
import { reply, route } from '@/server/http/route'
import { sessionBody } from '@/server/http/session-body'

export const dynamic = 'force-dynamic'

// Not found, rather than forbidden, from anywhere else: for a remote caller the sign-in does not exist.
function requireLoopback(request: Request): void {
  if (!isLoopbackRequest(request)) throw new ApiError('NOT_FOUND', 'the one-click demo sign-in exists only for requests from this machine to a loopback address')
}

export const GET = route(demoEndpoints.getDemoSignIn, ({ request, runtime }) => {
  demoOf(runtime)
  requireLoopback(request)
  return { oneClickSignIn: true as const }
})

export const POST = route(demoEndpoints.createDemoSession, async ({ request, runtime, audit }) => {
  const demo = demoOf(runtime)
  requireLoopback(request)
  const { principal, setCookie } = await runtime.auth.login(demo.operatorToken, request)
  audit.actor = { actor: principal.actor, role: principal.role, actorName: principal.actorName }
  return reply(200, sessionBody(principal), { 'Set-Cookie': setCookie })
})
