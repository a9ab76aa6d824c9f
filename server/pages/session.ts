import 'server-only'
import { cookies } from 'next/headers'
import { redirect } from 'next/navigation'
import type { Principal } from '@/server/http/auth'
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '@/server/http/auth'
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
  const authentication = runtime.auth.authenticate(request)
  return authentication.status === 'authenticated' ? { principal: authentication.principal, demo: runtime.config.demo } : null
}

/** For pages that need a signed-in viewer: sends everyone else to the sign-in page, then back here. */
export async function requirePageSession(path: string): Promise<PageSessionInfo> {
  const session = await getPageSession()
  if (session === null) redirect(`/login?next=${encodeURIComponent(path)}`)
  return session
}
