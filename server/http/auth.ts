import 'server-only'
// Over 400 lines on purpose: every way a caller proves who it is (shared tokens, named API tokens, browser and provider
// sessions, read again from the other instances when unknown here) against one throttle and one session store; the
// authorisation rules beside them read the principal it builds. The stores and the throttle are files of their own.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { AccessRole } from '@/lib/api/endpoints'
import { ApiError } from '@/lib/api/errors'
import type { Role } from '@/lib/api/session'
import { allows, allowsSomewhere, highestRole, refusalReason, type Grant, type Resource } from '@/lib/auth/grants'
import { SignInRefused } from '@/lib/auth/id-token-claims'
import { grantsFor, type RoleRule } from '@/lib/auth/roles-file'
import type { MetricFamily } from '../observability/metrics'
import type { Logger } from '../observability/logger'
import type { Tokens } from './access-tokens'
import { grantOf, type ApiTokenStore, type StoredApiToken } from './api-token-store'
import { AuthThrottle, type ThrottleVerdict } from './auth-throttle'
import { clientAddressOf } from './client-address'

/**
 * Who is calling (API.md "Authentication and roles"). API clients send `Authorization: Bearer <token>`;
 * browsers exchange a token for an httpOnly, SameSite=Strict session cookie. The server keeps only a hash
 * of each session id, so a leaked sessions file opens nothing, and each session remembers a fingerprint of
 * the token it was opened with, so rotating a token ends the sessions it opened.
 */

export const SESSION_COOKIE = 'mirrorboard_session'
/**
 * The session cookie's name over TLS. A browser keeps a `__Host-` cookie only when it is Secure, for Path=/
 * and without Domain, so neither a plain-HTTP page nor a sibling subdomain can plant or overwrite it.
 */
export { loadTokens, MIN_TOKEN_BITS, tokenStrengthBits, type Tokens } from './access-tokens'
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`
import { SESSION_TTL_MS, type SessionIdentity, type SessionStore, type StoredSession } from './session-store'
export { MAX_SESSIONS_PER_ROLE, MAX_SESSIONS_PER_SUBJECT, SESSION_TTL_MS, SessionStore, type SessionIdentity } from './session-store'

export interface Principal {
  /** The strongest role as before scopes (viewer or operator): the header's badge, the audit entry's `role`. */
  role: Role
  /** What this caller may do where (lib/auth/grants.ts). The operator token holds `admin` everywhere. */
  grants: Grant[]
  /** Audit name: `token:operator`, `token:ci-failover` (a named API token), `session:1a2b3c4d` (a token's session), `user:alice@example.com`. */
  actor: string
  /** Who, for people reading: "Alice Example <alice@example.com>"; null for the shared tokens. */
  actorName: string | null
  /** The provider's subject, `token:<role>` for a shared token, `token:<name>` for a named one. */
  subject: string
  name?: string | undefined
  email?: string | undefined
  /** Signed in through the identity provider, or with a token. */
  method: 'oidc' | 'token'
  via: 'bearer' | 'cookie'
  /** Cookie sessions only. */
  sessionExpiresAt: number | null
}

/** The shared tokens' grants: they keep every power they had before roles were scoped. */
const TOKEN_GRANTS: Record<Role, Grant[]> = { operator: [{ role: 'admin' }], viewer: [{ role: 'viewer' }] }

/** The audit log's and the header's name for a person: "Alice Example <alice@example.com>". */
export function displayNameOf(identity: Pick<SessionIdentity, 'subject' | 'name' | 'email'>): string {
  if (identity.name !== undefined && identity.email !== undefined) return `${identity.name} <${identity.email}>`
  return identity.name ?? identity.email ?? identity.subject
}

function legacyRole(grants: readonly Grant[]): Role {
  const best = highestRole(grants)
  return best === 'operator' || best === 'admin' ? 'operator' : 'viewer'
}

function tokenPrincipal(role: Role, actor: string, via: Principal['via'], sessionExpiresAt: number | null): Principal {
  return { role, grants: TOKEN_GRANTS[role], actor, actorName: null, subject: `token:${role}`, method: 'token', via, sessionExpiresAt }
}

/** A named API token's principal: its one grant, audited under its name. */
function apiTokenPrincipal(token: StoredApiToken): Principal {
  const grants = [grantOf(token)]
  return { role: legacyRole(grants), grants, actor: `token:${token.name}`, actorName: null, subject: `token:${token.name}`, method: 'token', via: 'bearer', sessionExpiresAt: null }
}

export type Authentication =
  | { status: 'anonymous' }
  | { status: 'authenticated'; principal: Principal }
  | { status: 'invalid'; message: string }
  /** The source is backing off after too many wrong tokens (auth-throttle.ts): its token was not checked. */
  | { status: 'throttled'; retryAfterMs: number }

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

function fingerprint(token: string): string {
  return sha256(`fingerprint:${token}`).toString('hex').slice(0, 16)
}

export function parseCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>()
  if (header === null) return cookies
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index <= 0) continue
    const name = part.slice(0, index).trim()
    const raw = part.slice(index + 1).trim()
    try {
      cookies.set(name, decodeURIComponent(raw))
    } catch {
      cookies.set(name, raw)
    }
  }
  return cookies
}

/**
 * True when the request's Origin header names the host the request was sent to. A browser sends Origin on
 * every cross-site and same-site non-GET fetch, so a mutation riding on a cookie without a matching Origin
 * did not come from our pages.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin')
  if (origin === null || origin === 'null') return false
  let originHost: string
  try {
    originHost = new URL(origin).host
  } catch {
    return false
  }
  const forwarded = request.headers.get('x-forwarded-host')?.split(',')[0]?.trim()
  const host = forwarded || request.headers.get('host') || new URL(request.url).host
  return originHost.toLowerCase() === host.toLowerCase()
}

/** The session id a request presents, under either name (the `__Host-` one first). */
export function sessionIdOf(cookieHeader: string | null): string | undefined {
  const cookies = parseCookies(cookieHeader)
  return cookies.get(SECURE_SESSION_COOKIE) || cookies.get(SESSION_COOKIE) || undefined
}

export function isSecureRequest(request: Request): boolean {
  const proto = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim()
  return (proto ?? new URL(request.url).protocol.replace(':', '')) === 'https'
}

function throttledError(verdict: Extract<ThrottleVerdict, { ok: false }>): ApiError {
  const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))
  const what = verdict.limit === 'sign-in' ? 'too many sign-ins from this address' : 'too many wrong tokens from this address'
  return new ApiError('TOO_MANY_REQUESTS', `${what}; try again in ${seconds} s`, { details: { retryAfterSeconds: seconds } })
}

export interface AuthOptions {
  throttle?: AuthThrottle
  log?: Logger
  /** The roles file's rules (MIRRORBOARD_ROLES_FILE); none: nobody signing in through the provider has a role. */
  rules?: readonly RoleRule[]
  /** A provider session unused this long ends (MIRRORBOARD_SESSION_IDLE_MINUTES). */
  sessionIdleMs?: number
  /** MIRRORBOARD_TOKEN_SIGN_IN=0: the tokens no longer open browser sessions (bearer use goes on). */
  tokenSignIn?: boolean
  /** Named API tokens (bearer only); none: only the two shared tokens. */
  apiTokens?: ApiTokenStore
}

export class Auth {
  private readonly digests: Array<{ role: Role; digest: Buffer; fingerprint: string }>
  private readonly throttle: AuthThrottle
  private readonly log: Logger | undefined
  private readonly failures = { 'sign-in': 0, bearer: 0 }
  private readonly refusals = { 'sign-in': 0, failures: 0 }
  private readonly rules: readonly RoleRule[]
  private readonly sessionIdleMs: number
  readonly tokenSignIn: boolean
  /** Named API tokens, created and revoked through /api/v1/tokens. */
  readonly apiTokens: ApiTokenStore | null

  private refreshShared: (() => Promise<void>) | null = null

  constructor(
    tokens: Tokens,
    private readonly sessions: SessionStore,
    options: AuthOptions = {},
  ) {
    this.throttle = options.throttle ?? new AuthThrottle()
    this.log = options.log
    this.rules = options.rules ?? []
    this.sessionIdleMs = options.sessionIdleMs ?? 60 * 60 * 1000
    this.tokenSignIn = options.tokenSignIn ?? true
    this.apiTokens = options.apiTokens ?? null
    this.digests = (['operator', 'viewer'] as const).map((role) => ({
      role,
      digest: sha256(tokens[role]),
      fingerprint: fingerprint(tokens[role]),
    }))
  }

  /** Compares digests in constant time, so the response time says nothing about how much of a token matched. */
  roleForToken(token: string): { role: Role; fingerprint: string } | null {
    const digest = sha256(token)
    let match: { role: Role; fingerprint: string } | null = null
    for (const entry of this.digests) if (timingSafeEqual(entry.digest, digest)) match = { role: entry.role, fingerprint: entry.fingerprint }
    return match
  }

  /** A wrong token: counted, logged, and perhaps the start of the source's back-off. */
  private failed(kind: 'sign-in' | 'bearer', source: string): void {
    this.failures[kind] += 1
    const backingOff = this.throttle.failure(source)
    this.log?.warn(backingOff ? 'wrong token; the source backs off' : 'wrong token', { via: kind, source })
  }

  private refused(verdict: Extract<ThrottleVerdict, { ok: false }>): void {
    this.refusals[verdict.limit] += 1
  }

  /** The auth families of GET /api/metrics. */
  metricFamilies(): MetricFamily[] {
    return [
      {
        name: 'mirrorboard_auth_failures_total',
        help: 'Wrong tokens presented, by where (sign-in, bearer).',
        type: 'counter',
        samples: Object.entries(this.failures).map(([via, value]) => ({ labels: { via }, value })),
      },
      {
        name: 'mirrorboard_auth_throttled_total',
        help: 'Requests refused with 429 by a limit per source (sign-in rate, back-off after wrong tokens).',
        type: 'counter',
        samples: Object.entries(this.refusals).map(([limit, value]) => ({ labels: { limit }, value })),
      },
      { name: 'mirrorboard_sessions', help: 'Open sign-in sessions.', type: 'gauge', samples: [{ value: this.sessions.size }] },
    ]
  }

  /** Several instances: reads what the others published now (server/ha/shared-identity.ts). */
  setSharedRefresh(refresh: () => Promise<void>): void {
    this.refreshShared = refresh
  }

  /**
   * `authenticate`, and with several instances once more after reading what the others published when the
   * credentials are not known here: a session or token made at another instance a moment ago.
   */
  async authenticateShared(request: Request): Promise<Authentication> {
    const first = this.authenticate(request)
    if (first.status !== 'invalid' || this.refreshShared === null) return first
    await this.refreshShared()
    return this.authenticate(request)
  }

  /** A bearer token wins over a cookie; bad credentials are `invalid`, never silently anonymous. */
  authenticate(request: Request): Authentication {
    const authorization = request.headers.get('authorization')
    if (authorization !== null) {
      const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)
      if (!match?.[1]) return { status: 'invalid', message: 'the Authorization header must be "Bearer <token>"' }
      const source = clientAddressOf(request)
      const verdict = this.throttle.check(source)
      if (!verdict.ok) {
        this.refused(verdict)
        return { status: 'throttled', retryAfterMs: verdict.retryAfterMs }
      }
      const found = this.roleForToken(match[1])
      if (found === null) {
        const named = this.apiTokens?.find(match[1]) ?? { status: 'unknown' }
        if (named.status === 'live') return { status: 'authenticated', principal: apiTokenPrincipal(named.token) }
        // A known token past its expiry is not a guess: no back-off, and the caller learns which token to renew.
        if (named.status === 'expired') return { status: 'invalid', message: `the API token ${named.token.name} expired on ${new Date(named.token.expiresAt).toISOString()}; an administrator can create a new one` }
        this.failed('bearer', source)
        return { status: 'invalid', message: 'the bearer token is not valid' }
      }
      return { status: 'authenticated', principal: tokenPrincipal(found.role, `token:${found.role}`, 'bearer', null) }
    }
    const sessionId = sessionIdOf(request.headers.get('cookie'))
    if (sessionId === undefined) return { status: 'anonymous' }
    const session = this.sessions.find(sessionId, this.sessionIdleMs)
    const ended: Authentication = { status: 'invalid', message: 'the session has expired or was ended; sign in again' }
    if (session === null) return ended
    if (session.identity !== undefined) {
      const principal = this.personPrincipal(session.identity, this.sessions.endOf(session, this.sessionIdleMs))
      // The roles file no longer gives this person anything (it changed and the server restarted).
      return principal.grants.length === 0 ? { status: 'invalid', message: 'you no longer have a role in Mirrorboard; ask for one and sign in again' } : { status: 'authenticated', principal }
    }
    const current = this.digests.find((entry) => entry.role === session.role)
    if (current?.fingerprint !== session.tokenFingerprint) return ended
    return { status: 'authenticated', principal: tokenPrincipal(session.role, `session:${session.idHash.slice(0, 8)}`, 'cookie', session.expiresAt) }
  }

  private personPrincipal(identity: SessionIdentity, sessionExpiresAt: number): Principal {
    const grants = grantsFor(this.rules, identity)
    return {
      role: legacyRole(grants),
      grants,
      actor: `user:${identity.email ?? identity.subject}`,
      actorName: displayNameOf(identity),
      subject: identity.subject,
      name: identity.name,
      email: identity.email,
      method: 'oidc',
      via: 'cookie',
      sessionExpiresAt,
    }
  }

  /** The roles the file gives this person; none refuses the sign-in. */
  grantsOf(identity: SessionIdentity): Grant[] {
    return grantsFor(this.rules, identity)
  }

  /**
   * Opens a session for a person the identity provider vouched for (server/identity/). Refused when the roles
   * file gives them nothing: signing in would only show them an empty page.
   */
  async loginPerson(identity: SessionIdentity, request: Request, idToken?: string): Promise<{ principal: Principal; setCookie: string }> {
    const grants = grantsFor(this.rules, identity)
    if (grants.length === 0) {
      throw new SignInRefused('no-role', `${displayNameOf(identity)} signed in at the identity provider but has no role in Mirrorboard (groups: ${identity.groups.join(', ') || 'none'}); ask an administrator to add one to the roles file`)
    }
    const presented = sessionIdOf(request.headers.get('cookie'))
    if (presented) await this.sessions.delete(presented)
    const session = await this.sessions.create(legacyRole(grants), 'oidc', identity, idToken)
    return { principal: this.personPrincipal(identity, session.expiresAt), setCookie: this.sessionCookie(session.id, request) }
  }

  private sessionCookie(id: string, request: Request): string {
    const secure = isSecureRequest(request)
    const maxAge = Math.floor(SESSION_TTL_MS / 1000)
    return `${secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`
  }

  /** The stored session of a request, for sign-out (whether it came from the provider). */
  sessionOf(request: Request): StoredSession | null {
    const id = sessionIdOf(request.headers.get('cookie'))
    return id === undefined ? null : this.sessions.find(id, this.sessionIdleMs)
  }

  /**
   * Opens a session for a valid token; the cookie is httpOnly, SameSite=Strict, Secure over https. The session
   * the request presents, if any, ends: signing in again replaces it rather than piling sessions up.
   */
  async login(token: string, request: Request): Promise<{ principal: Principal; setCookie: string }> {
    if (!this.tokenSignIn) throw new ApiError('FORBIDDEN', 'signing in with a token is turned off here (MIRRORBOARD_TOKEN_SIGN_IN=0): sign in through the identity provider')
    const source = clientAddressOf(request)
    const verdict = this.throttle.admitSignIn(source)
    if (!verdict.ok) {
      this.refused(verdict)
      throw throttledError(verdict)
    }
    const found = this.roleForToken(token)
    if (found === null && this.apiTokens !== null && this.apiTokens.find(token).status !== 'unknown') {
      throw new ApiError('UNAUTHENTICATED', 'named API tokens are for machines: send it as "Authorization: Bearer <token>"; people sign in through the identity provider or with a shared token')
    }
    if (found === null) {
      this.failed('sign-in', source)
      throw new ApiError('UNAUTHENTICATED', 'the token is not valid')
    }
    const presented = sessionIdOf(request.headers.get('cookie'))
    if (presented) await this.sessions.delete(presented)
    const session = await this.sessions.create(found.role, found.fingerprint)
    return {
      principal: tokenPrincipal(found.role, `session:${session.idHash.slice(0, 8)}`, 'cookie', session.expiresAt),
      setCookie: this.sessionCookie(session.id, request),
    }
  }

  /** Ends the request's session, if any, and returns the header that clears the cookie. */
  async logout(request: Request): Promise<string> {
    const sessionId = sessionIdOf(request.headers.get('cookie'))
    if (sessionId) await this.sessions.delete(sessionId)
    const secure = isSecureRequest(request)
    return `${secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`
  }
}

/**
 * Decides whether the caller may use an endpoint: 401 without (valid) credentials, 403 when no grant of the
 * caller reaches the role the endpoint needs on the resource it names (a viewer on an operator endpoint, an
 * operator scoped to other mirrors), 403 for a cookie-authenticated mutation without a same-origin Origin
 * header, and 403 for any mutation whose Origin names another site. `resource` is the cluster or mirror the
 * path names; without one a read needs the role somewhere, a change needs it everywhere (creating a mirror), and
 * `somewhere` lets a handler that finds the mirror itself (a drill by id) check it with `requireGrant`.
 * Returns the principal, null for anonymous public calls.
 */
export function authorize(
  authentication: Authentication,
  required: AccessRole,
  request: Request,
  mutation: boolean,
  resource: Resource | 'somewhere' = null,
): Principal | null {
  if (mutation && request.headers.get('origin') !== null && !isSameOrigin(request)) {
    throw new ApiError('FORBIDDEN', 'cross-origin requests may not change anything')
  }
  if (required === 'public') {
    return authentication.status === 'authenticated' ? authentication.principal : null
  }
  if (authentication.status === 'throttled') throw throttledError({ ok: false, limit: 'failures', retryAfterMs: authentication.retryAfterMs })
  if (authentication.status === 'anonymous') throw new ApiError('UNAUTHENTICATED', 'credentials required: a bearer token or a session cookie')
  if (authentication.status === 'invalid') throw new ApiError('UNAUTHENTICATED', authentication.message)
  const { principal } = authentication
  if (mutation && principal.via === 'cookie' && !isSameOrigin(request)) {
    throw new ApiError('FORBIDDEN', 'a cookie-authenticated change must carry a same-origin Origin header')
  }
  const allowed =
    resource === 'somewhere' || (resource === null && !mutation) ? allowsSomewhere(principal.grants, required) : allows(principal.grants, required, resource)
  if (!allowed) forbid(principal, required, resource === 'somewhere' ? null : resource)
  return principal
}

function forbid(principal: Principal, required: Exclude<AccessRole, 'public'>, resource: Resource): never {
  throw new ApiError('FORBIDDEN', refusalReason(principal.grants, required, resource), {
    details: { required, ...(resource === null ? {} : resource) },
  })
}

/** A handler's own scope check, once it knows the mirror or cluster an id belongs to. */
export function requireGrant(principal: Principal, required: Exclude<AccessRole, 'public'>, resource: Resource): void {
  if (!allows(principal.grants, required, resource)) forbid(principal, required, resource)
}

/** Who asked, as operations, drills and verifications record it: the person's name travels with the actor. */
export function requesterOf(principal: Principal): { actor: string; actorName?: string; role: Role } {
  return { actor: principal.actor, ...(principal.actorName === null ? {} : { actorName: principal.actorName }), role: principal.role }
}
