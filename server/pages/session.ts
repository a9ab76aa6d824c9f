import 'server-only'
import { cookies } from 'next/headers'
import { redirect } from 'next/navigation'
import { allows, allowsSomewhere, refusalReason, type GrantRole, type Resource } from '@/lib/auth/grants'
import type { Principal } from '@/server/http/auth'
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '@/server/http/auth'
import { SIGN_IN_HINT_COOKIE } from '@/server/http/provider-routes'
import { getRuntime } from '@/server/runtime'

/**
 * The session of a page request, checked the way the API checks a cookie (server/http/auth.ts), so a page
 * and the API calls it makes agree on who is signed in.
 */
export interface PageSessionInfo {
  readonly principal: Principal
  readonly demo: boolean
}

export async function getPageSession(): Promise<PageSessionInfo | null> {
  const runtime = await getRuntime()
  const jar = await cookies()
  const sessionId = jar.get(SECURE_SESSION_COOKIE)?.value || jar.get(SESSION_COOKIE)?.value
  if (sessionId === undefined || sessionId === '') return null
  const request = new Request('http://page.local/', { headers: { cookie: `${SESSION_COOKIE}=${sessionId}` } })
  const authentication = await runtime.auth.authenticateShared(request)
  return authentication.status === 'authenticated' ? { principal: authentication.principal, demo: runtime.config.demo } : null
}

/**
 * For pages that need a signed-in viewer: sends everyone else to the sign-in page, then back here. A browser
 * that last signed in through the identity provider (its hint cookie, server/http/provider-routes.ts) goes
 * straight back through the provider instead: with the provider's own session still alive that is a pair of
 * redirects the person does not see, not a sign-in page every hour.
 */
export async function requirePageSession(path: string): Promise<PageSessionInfo> {
  const session = await getPageSession()
  if (session !== null) return session
  const runtime = await getRuntime()
  if (runtime.identity !== null && (await cookies()).get(SIGN_IN_HINT_COOKIE)?.value === 'oidc') {
    redirect(`/api/v1/auth/oidc/login?next=${encodeURIComponent(path)}`)
  }
  redirect(`/login?next=${encodeURIComponent(path)}`)
}

/** Why the page's person may not read this mirror or cluster (their scopes name others), or null when they may. */
export function scopeRefusal(session: PageSessionInfo, resource: Exclude<Resource, null>): string | null {
  return allows(session.principal.grants, 'viewer', resource) ? null : refusalReason(session.principal.grants, 'viewer', resource)
}

/**
 * Whether the page's person may act as `role` on `resource`, and if not, why — in the words of the API's 403
 * — when they hold the role somewhere else (a plain viewer gets undefined: the page's usual "needs the operator role").
 */
export function pageGrant(session: PageSessionInfo, role: GrantRole, resource: Resource): { allowed: boolean; reason: string | undefined } {
  const { grants } = session.principal
  if (allows(grants, role, resource)) return { allowed: true, reason: undefined }
  return { allowed: false, reason: allowsSomewhere(grants, role) || session.principal.method === 'oidc' ? refusalReason(grants, role, resource) : undefined }
}
