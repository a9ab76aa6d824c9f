import 'server-only'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { chmod, stat } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import type { AccessRole } from '@/lib/api/endpoints'
import { ApiError } from '@/lib/api/errors'
import type { Role } from '@/lib/api/session'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { MetricFamily } from '../observability/metrics'
import type { Logger } from '../observability/logger'
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
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`
import { SESSION_TTL_MS, type SessionStore } from './session-store'
export { MAX_SESSIONS_PER_ROLE, SESSION_TTL_MS, SessionStore } from './session-store'

export interface Principal {
  role: Role
  /** Audit name: `token:operator`, `session:1a2b3c4d`. */
  actor: string
  via: 'bearer' | 'cookie'
  /** Cookie sessions only. */
  sessionExpiresAt: number | null
}

export type Authentication =
  | { status: 'anonymous' }
  | { status: 'authenticated'; principal: Principal }
  | { status: 'invalid'; message: string }
  /** The source is backing off after too many wrong tokens (auth-throttle.ts): its token was not checked. */
  | { status: 'throttled'; retryAfterMs: number }

export interface Tokens {
  operator: string
  viewer: string
}

const TokensFile = z.object({ operator: z.string().min(1).optional(), viewer: z.string().min(1).optional() })

function generateToken(role: Role): string {
  return `mb${role === 'operator' ? 'o' : 'v'}_${randomBytes(32).toString('base64url')}`
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

function fingerprint(token: string): string {
  return sha256(`fingerprint:${token}`).toString('hex').slice(0, 16)
}

/**
 * An estimate of a token's strength: its length times the bits of the alphabet its characters come from
 * (lower case, upper case, digits, others). A generated token is 256 bits; 128 is the least the warning asks.
 */
export function tokenStrengthBits(token: string): number {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/]
  const sizes = [26, 26, 10, 33]
  const alphabet = classes.reduce((total, pattern, index) => total + (pattern.test(token) ? (sizes[index] ?? 0) : 0), 0)
  return Math.floor(token.length * Math.log2(Math.max(alphabet, 2)))
}

export const MIN_TOKEN_BITS = 128

/**
 * Tokens from the environment, else from `<dataDir>/tokens.json`, else generated now, kept there (mode 0600)
 * and printed once so the person who started the server can sign in.
 */
export async function loadTokens(
  dataDir: string,
  fromEnv: { operator?: string | undefined; viewer?: string | undefined },
  log: Logger,
): Promise<Tokens> {
  const file = path.join(dataDir, 'tokens.json')
  const text = await readTextIfExists(file)
  let stored: z.infer<typeof TokensFile> = {}
  if (text !== undefined) {
    const parsed = TokensFile.safeParse(JSON.parse(text))
    if (!parsed.success) throw new Error(`${file} is not a tokens file; remove it to generate new tokens`, { cause: parsed.error })
    stored = parsed.data
    // A copy restored from a backup may have lost its mode; tokens are secrets.
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600)
  }

  const generated: Partial<Tokens> = {}
  const pick = (role: Role): string => {
    const value = fromEnv[role] ?? stored[role]
    if (value !== undefined) return value
    generated[role] = generateToken(role)
    return generated[role]
  }
  const tokens: Tokens = { operator: pick('operator'), viewer: pick('viewer') }
  for (const role of ['operator', 'viewer'] as const) {
    const bits = tokenStrengthBits(tokens[role])
    if (generated[role] === undefined && bits < MIN_TOKEN_BITS) {
      log.warn(`the ${role} token is weak (about ${bits} bits, under ${MIN_TOKEN_BITS}): it can be guessed; use a long random one, or leave it unset to have one generated`, { role, bits })
    }
  }
  if (tokens.operator === tokens.viewer) {
    throw new Error('the operator and viewer tokens must differ (MIRRORBOARD_OPERATOR_TOKEN, MIRRORBOARD_VIEWER_TOKEN)')
  }
  if (generated.operator !== undefined || generated.viewer !== undefined) {
    await writeFileAtomic(file, `${JSON.stringify({ ...stored, ...generated }, null, 1)}\n`, 0o600)
    const lines = Object.entries(generated).map(([role, token]) => `  ${role.padEnd(8)} ${token}`)
    // Printed on purpose, once: this is how the person starting the server learns the generated tokens.
    process.stdout.write(`Mirrorboard access tokens (kept in ${file}):\n${lines.join('\n')}\n`)
    log.info('generated access tokens', { file, roles: Object.keys(generated) })
  }
  return tokens
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

function isSecureRequest(request: Request): boolean {
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
}

export class Auth {
  private readonly digests: Array<{ role: Role; digest: Buffer; fingerprint: string }>
  private readonly throttle: AuthThrottle
  private readonly log: Logger | undefined
  private readonly failures = { 'sign-in': 0, bearer: 0 }
  private readonly refusals = { 'sign-in': 0, failures: 0 }

  constructor(
    tokens: Tokens,
    private readonly sessions: SessionStore,
    options: AuthOptions = {},
  ) {
    this.throttle = options.throttle ?? new AuthThrottle()
    this.log = options.log
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
        this.failed('bearer', source)
        return { status: 'invalid', message: 'the bearer token is not valid' }
      }
      return { status: 'authenticated', principal: { role: found.role, actor: `token:${found.role}`, via: 'bearer', sessionExpiresAt: null } }
    }
    const sessionId = sessionIdOf(request.headers.get('cookie'))
    if (sessionId === undefined) return { status: 'anonymous' }
    const session = this.sessions.find(sessionId)
    const current = session && this.digests.find((entry) => entry.role === session.role)
    if (!session || current?.fingerprint !== session.tokenFingerprint) {
      return { status: 'invalid', message: 'the session has expired or was ended; sign in again' }
    }
    return {
      status: 'authenticated',
      principal: { role: session.role, actor: `session:${session.idHash.slice(0, 8)}`, via: 'cookie', sessionExpiresAt: session.expiresAt },
    }
  }

  /**
   * Opens a session for a valid token; the cookie is httpOnly, SameSite=Strict, Secure over https. The session
   * the request presents, if any, ends: signing in again replaces it rather than piling sessions up.
   */
  async login(token: string, request: Request): Promise<{ principal: Principal; setCookie: string }> {
    const source = clientAddressOf(request)
    const verdict = this.throttle.admitSignIn(source)
    if (!verdict.ok) {
      this.refused(verdict)
      throw throttledError(verdict)
    }
    const found = this.roleForToken(token)
    if (found === null) {
      this.failed('sign-in', source)
      throw new ApiError('UNAUTHENTICATED', 'the token is not valid')
    }
    const presented = sessionIdOf(request.headers.get('cookie'))
    if (presented) await this.sessions.delete(presented)
    const session = await this.sessions.create(found.role, found.fingerprint)
    const maxAge = Math.floor(SESSION_TTL_MS / 1000)
    const secure = isSecureRequest(request)
    return {
      principal: {
        role: found.role,
        actor: `session:${sha256(session.id).toString('hex').slice(0, 8)}`,
        via: 'cookie',
        sessionExpiresAt: session.expiresAt,
      },
      setCookie: `${secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`,
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
 * Decides whether the caller may use an endpoint: 401 without (valid) credentials, 403 for a viewer on an
 * operator endpoint, 403 for a cookie-authenticated mutation without a same-origin Origin header, and 403
 * for any mutation whose Origin names another site. Returns the principal, null for anonymous public calls.
 */
export function authorize(authentication: Authentication, required: AccessRole, request: Request, mutation: boolean): Principal | null {
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
  if (required === 'operator' && principal.role !== 'operator') {
    throw new ApiError('FORBIDDEN', 'this action needs the operator role')
  }
  return principal
}
