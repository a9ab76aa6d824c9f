import 'server-only'
import { ApiError } from '@/lib/api/errors'
import type { SignOut } from '@/lib/api/session'
import { isSignInRefused } from '@/lib/auth/id-token-claims'
import { safeNextPath } from '@/lib/ui/next-path'
import { SIGN_IN_HINT_COOKIE, STATE_COOKIE, type ProviderSignIn } from '@/server/identity/provider-sign-in'

export { SIGN_IN_HINT_COOKIE }
import type { Runtime } from '@/server/runtime'
import { logger } from '../observability/logger'
import { displayNameOf, isSecureRequest, parseCookies, SECURE_SESSION_COOKIE, SESSION_COOKIE } from './auth'
import { clientAddressOf } from './client-address'

/**
 * The browser's side of signing in through the identity provider (GET /auth/oidc/login and /callback, POST
 * /auth/logout). Every outcome of a callback is audited as `session.create`, accepted or refused with its
 * reason; a refused one sends the browser to the sign-in page, which says why in its own words
 * (lib/auth/sign-in-errors.ts) — only the reason's code travels in the address.
 */

const HINT_MAX_AGE_S = 30 * 24 * 60 * 60
const log = logger.child({ module: 'sign-in' })

function providerOf(runtime: Runtime): ProviderSignIn {
  if (runtime.identity === null) throw new ApiError('NOT_FOUND', 'no identity provider is configured (MIRRORBOARD_OIDC_ISSUER)')
  return runtime.identity
}

function toSignInPage(reason: string, next: string, headers: Headers = new Headers()): Response {
  headers.set('Location', `/login?signInError=${encodeURIComponent(reason)}${next === '/' ? '' : `&next=${encodeURIComponent(next)}`}`)
  headers.set('Cache-Control', 'no-store')
  return new Response(null, { status: 303, headers })
}

export async function startProviderSignIn(runtime: Runtime, request: Request, next: string | undefined): Promise<Response> {
  const provider = providerOf(runtime)
  const path = safeNextPath(next)
  try {
    const { location, setCookie } = await provider.start(path, isSecureRequest(request))
    return new Response(null, { status: 302, headers: { Location: location, 'Set-Cookie': setCookie, 'Cache-Control': 'no-store' } })
  } catch (error) {
    if (!isSignInRefused(error)) throw error
    log.warn('could not start a sign-in at the identity provider', { reason: error.reason, error: error.message })
    return toSignInPage(error.reason, path)
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

/**
 * The page that moves the browser on after the session cookie is set. Not a redirect: the provider sent the
 * browser here cross-site, and a browser does not send a SameSite=Strict cookie on a redirect chain that began
 * on another site — the next page would look signed out. A navigation started by this page is same-site.
 */
function continuePage(next: string): string {
  const href = escapeHtml(next)
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${href}"><title>Signed in · Mirrorboard</title></head><body><p>Signed in. <a href="${href}">Continue</a></p></body></html>`
}

export async function finishProviderSignIn(runtime: Runtime, request: Request, url: URL): Promise<Response> {
  const provider = providerOf(runtime)
  const secure = isSecureRequest(request)
  const headers = new Headers({ 'Cache-Control': 'no-store' })
  headers.append('Set-Cookie', provider.clearStateCookie(secure))
  const browserState = parseCookies(request.headers.get('cookie')).get(STATE_COOKIE)
  let who: { actor: string; actorName?: string } = { actor: 'anonymous' }
  let next = '/'
  const audit = async (outcome: 'ok' | 'rejected', error: { code: string; message: string } | null, role: 'viewer' | 'operator' | null) => {
    try {
      await runtime.audit.record(
        { ...who, role, action: 'session.create', target: '/auth/oidc/callback', request: { provider: provider.info.name }, outcome, error, dryRun: false },
        clientAddressOf(request),
      )
    } catch (failure) {
      log.error('could not append to the audit log', { action: 'session.create', error: failure })
    }
  }
  try {
    const finished = await provider.finish(url.searchParams, browserState)
    next = finished.next
    who = { actor: `user:${finished.identity.email ?? finished.identity.subject}`, actorName: displayNameOf(finished.identity) }
    const { principal, setCookie } = await runtime.auth.loginPerson(finished.identity, request, finished.idToken)
    headers.append('Set-Cookie', setCookie)
    headers.append('Set-Cookie', `${SIGN_IN_HINT_COOKIE}=oidc; Path=/; HttpOnly; SameSite=Lax; Max-Age=${HINT_MAX_AGE_S}${secure ? '; Secure' : ''}`)
    await audit('ok', null, principal.role)
    headers.set('Content-Type', 'text/html; charset=utf-8')
    return new Response(continuePage(next), { status: 200, headers })
  } catch (error) {
    if (!isSignInRefused(error)) throw error
    log.warn('refused a sign-in through the identity provider', { reason: error.reason, error: error.message })
    await audit('rejected', { code: error.reason === 'no-role' ? 'FORBIDDEN' : 'UNAUTHENTICATED', message: `sign-in refused (${error.reason}): ${error.message}` }, null)
    return toSignInPage(error.reason, next, headers)
  }
}

/** Ends the session; a provider session also names the provider's sign-out page. Clears the cookies either way. */
export async function signOut(runtime: Runtime, request: Request): Promise<Response> {
  const session = runtime.auth.sessionOf(request)
  const fromProvider = session?.identity !== undefined
  const secure = isSecureRequest(request)
  const headers = new Headers({ 'Cache-Control': 'no-store', 'Content-Type': 'application/json' })
  headers.append('Set-Cookie', await runtime.auth.logout(request))
  // Both names: a browser that once had the plain cookie over http keeps it until told.
  headers.append('Set-Cookie', `${secure ? SESSION_COOKIE : SECURE_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '' : '; Secure'}`)
  headers.append('Set-Cookie', `${SIGN_IN_HINT_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`)
  const body: SignOut = { endSessionUrl: fromProvider && runtime.identity !== null ? await runtime.identity.endSessionUrl(session?.idToken) : null }
  return new Response(JSON.stringify(body), { status: 200, headers })
}
