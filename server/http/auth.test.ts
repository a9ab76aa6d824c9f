import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, chmodSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isApiError, type ApiError } from '@/lib/api/errors'
import { Auth, SESSION_COOKIE, SESSION_TTL_MS, SessionStore, authorize, isSameOrigin, loadTokens, parseCookies, tokenStrengthBits, type Authentication } from './auth'
import { parseRolesFile } from '@/lib/auth/roles-file'
import { logger } from '../observability/logger'

let dir: string
const quiet = logger.child({})
let stdout: { mock: { calls: unknown[][] }; mockClear(): void }

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-auth-'))
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
})
afterEach(() => {
  vi.restoreAllMocks()
  rmSync(dir, { recursive: true, force: true })
})

const tokens = { operator: 'op-secret-token', viewer: 'view-secret-token' }

function request(init: { method?: string; headers?: Record<string, string> } = {}): Request {
  return new Request('http://127.0.0.1:3310/api/v1/clusters', { method: init.method ?? 'GET', headers: { host: '127.0.0.1:3310', ...init.headers } })
}

async function authWith(now: () => number = Date.now): Promise<{ auth: Auth; sessions: SessionStore }> {
  const sessions = await SessionStore.open(dir, now)
  return { auth: new Auth(tokens, sessions), sessions }
}

function expectApiError(fn: () => unknown, code: string): ApiError {
  try {
    fn()
  } catch (error) {
    expect(isApiError(error) ? error.code : error).toBe(code)
    return error as ApiError
  }
  expect.unreachable(`expected ${code}`)
}

describe('loadTokens', () => {
  it('generates both tokens at first start, prints them once and keeps them in a 0600 file', async () => {
    const first = await loadTokens(dir, {}, quiet)
    expect(first.operator).toMatch(/^mbo_[A-Za-z0-9_-]{43}$/)
    expect(first.viewer).toMatch(/^mbv_[A-Za-z0-9_-]{43}$/)
    const file = path.join(dir, 'tokens.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first)
    const printed = stdout.mock.calls.map((call: unknown[]) => String(call[0])).join('')
    expect(printed).toContain(first.operator)
    expect(printed).toContain(first.viewer)

    stdout.mockClear()
    expect(await loadTokens(dir, {}, quiet)).toEqual(first)
    expect(stdout).not.toHaveBeenCalled()
  })

  it('prefers the environment and generates only what it leaves out', async () => {
    const result = await loadTokens(dir, { operator: 'from-env' }, quiet)
    expect(result.operator).toBe('from-env')
    expect(result.viewer).toMatch(/^mbv_/)
    const stored = JSON.parse(readFileSync(path.join(dir, 'tokens.json'), 'utf8')) as Record<string, string>
    expect(stored).toEqual({ viewer: result.viewer })
  })

  it('writes no file when the environment gives both', async () => {
    await loadTokens(dir, tokens, quiet)
    expect(() => statSync(path.join(dir, 'tokens.json'))).toThrow()
  })

  it('tightens a tokens file that others can read', async () => {
    const file = path.join(dir, 'tokens.json')
    writeFileSync(file, JSON.stringify(tokens))
    chmodSync(file, 0o644)
    expect(await loadTokens(dir, {}, quiet)).toEqual(tokens)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('warns at start about tokens under 128 bits, never about generated ones (issue #41 item 6)', async () => {
    const warnings: string[] = []
    const log = { ...quiet, warn: (message: string) => warnings.push(message) }
    await loadTokens(dir, { operator: 'op-secret-token', viewer: `mbv_${'A1b2'.repeat(8)}` }, log)
    expect(warnings).toEqual([expect.stringMatching(/operator token is weak \(about \d+ bits, under 128\)/)])
    warnings.length = 0
    const generatedDir = path.join(dir, 'generated')
    mkdirSync(generatedDir)
    await loadTokens(generatedDir, {}, log)
    expect(warnings).toEqual([])
    expect(tokenStrengthBits('a'.repeat(27))).toBeLessThan(128)
    expect(tokenStrengthBits(`mbo_${'x'.repeat(43)}`)).toBeGreaterThanOrEqual(128)
  })

  it('refuses equal operator and viewer tokens', async () => {
    await expect(loadTokens(dir, { operator: 'same', viewer: 'same' }, quiet)).rejects.toThrow(/must differ/)
  })
})

describe('Auth', () => {
  it('maps bearer tokens to roles and refuses unknown or malformed ones', async () => {
    const { auth } = await authWith()
    expect(auth.authenticate(request({ headers: { authorization: `Bearer ${tokens.operator}` } }))).toMatchObject({
      status: 'authenticated',
      principal: { role: 'operator', actor: 'token:operator', via: 'bearer' },
    })
    expect(auth.authenticate(request({ headers: { authorization: `bearer ${tokens.viewer}` } }))).toMatchObject({ principal: { role: 'viewer' } })
    expect(auth.authenticate(request({ headers: { authorization: 'Bearer nope' } })).status).toBe('invalid')
    expect(auth.authenticate(request({ headers: { authorization: tokens.operator } })).status).toBe('invalid')
    expect(auth.authenticate(request({ headers: { authorization: `Bearer ${tokens.operator}x` } })).status).toBe('invalid')
    expect(auth.authenticate(request()).status).toBe('anonymous')
  })

  it('opens an httpOnly SameSite=Strict session whose cookie authenticates, and survives a restart', async () => {
    const { auth } = await authWith()
    const { setCookie, principal } = await auth.login(tokens.viewer, request({ method: 'POST' }))
    expect(principal.role).toBe('viewer')
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200$`))
    const cookie = setCookie.split(';')[0] ?? ''
    expect(auth.authenticate(request({ headers: { cookie } }))).toMatchObject({ status: 'authenticated', principal: { role: 'viewer', via: 'cookie' } })

    const restarted = new Auth(tokens, await SessionStore.open(dir))
    expect(restarted.authenticate(request({ headers: { cookie: `other=1; ${cookie}` } }))).toMatchObject({ principal: { role: 'viewer' } })
    expect(statSync(path.join(dir, 'sessions.json')).mode & 0o777).toBe(0o600)
    expect(readFileSync(path.join(dir, 'sessions.json'), 'utf8')).not.toContain(cookie.split('=')[1])
  })

  it('marks the cookie Secure and names it __Host- behind https, and reads and clears it by that name', async () => {
    const { auth } = await authWith()
    const overTls = { 'x-forwarded-proto': 'https' }
    const { setCookie } = await auth.login(tokens.operator, request({ method: 'POST', headers: overTls }))
    expect(setCookie).toMatch(new RegExp(`^__Host-${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$`))
    const cookie = setCookie.split(';')[0] ?? ''
    expect(auth.authenticate(request({ headers: { cookie } }))).toMatchObject({ status: 'authenticated', principal: { role: 'operator' } })
    expect(await auth.logout(request({ headers: { cookie, ...overTls } }))).toMatch(new RegExp(`^__Host-${SESSION_COOKIE}=; .*Max-Age=0; Secure$`))
    expect(auth.authenticate(request({ headers: { cookie } })).status).toBe('invalid')
  })

  it('refuses a wrong token at sign-in', async () => {
    const { auth, sessions } = await authWith()
    await expect(auth.login('wrong', request({ method: 'POST' }))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    expect(sessions.size).toBe(0)
  })

  it('ends a session on logout and when it expires', async () => {
    let now = 1_000_000
    const { auth } = await authWith(() => now)
    const first = (await auth.login(tokens.operator, request({ method: 'POST' }))).setCookie.split(';')[0] ?? ''
    const second = (await auth.login(tokens.operator, request({ method: 'POST' }))).setCookie.split(';')[0] ?? ''
    const cleared = await auth.logout(request({ method: 'DELETE', headers: { cookie: first } }))
    expect(cleared).toMatch(new RegExp(`^${SESSION_COOKIE}=; .*Max-Age=0`))
    expect(auth.authenticate(request({ headers: { cookie: first } })).status).toBe('invalid')
    expect(auth.authenticate(request({ headers: { cookie: second } })).status).toBe('authenticated')
    now += SESSION_TTL_MS
    expect(auth.authenticate(request({ headers: { cookie: second } })).status).toBe('invalid')
  })

  it('ends sessions opened with a token that has since been rotated', async () => {
    const { auth } = await authWith()
    const cookie = (await auth.login(tokens.operator, request({ method: 'POST' }))).setCookie.split(';')[0] ?? ''
    const rotated = new Auth({ ...tokens, operator: 'new-operator-token' }, await SessionStore.open(dir))
    expect(rotated.authenticate(request({ headers: { cookie } })).status).toBe('invalid')
  })
})

describe('authorize', () => {
  const base = { actorName: null, method: 'token', subject: 'token:x' } as const
  const operator: Authentication = { status: 'authenticated', principal: { ...base, role: 'operator', grants: [{ role: 'admin' }], actor: 'token:operator', via: 'bearer', sessionExpiresAt: null } }
  const viewer: Authentication = { status: 'authenticated', principal: { ...base, role: 'viewer', grants: [{ role: 'viewer' }], actor: 'token:viewer', via: 'bearer', sessionExpiresAt: null } }
  const cookieOperator: Authentication = { status: 'authenticated', principal: { ...base, role: 'operator', grants: [{ role: 'operator' }], actor: 'session:1', via: 'cookie', sessionExpiresAt: 1 } }
  const scoped: Authentication = {
    status: 'authenticated',
    principal: { ...base, role: 'operator', grants: [{ role: 'operator', mirrors: ['.*-to-eu-west'] }, { role: 'viewer' }], actor: 'user:alice@example.com', via: 'bearer', sessionExpiresAt: null },
  }

  it('needs credentials for viewer and operator endpoints, none for public ones', () => {
    expectApiError(() => authorize({ status: 'anonymous' }, 'viewer', request(), false), 'UNAUTHENTICATED')
    expectApiError(() => authorize({ status: 'invalid', message: 'bad' }, 'viewer', request(), false), 'UNAUTHENTICATED')
    expect(authorize({ status: 'anonymous' }, 'public', request(), false)).toBeNull()
    expect(authorize(viewer, 'viewer', request(), false)).toEqual(viewer.principal)
  })

  it('refuses a viewer on an operator endpoint', () => {
    expectApiError(() => authorize(viewer, 'operator', request({ method: 'POST' }), true), 'FORBIDDEN')
    expect(authorize(operator, 'operator', request({ method: 'POST' }), true)).toEqual(operator.principal)
  })

  it('requires a same-origin Origin on cookie-authenticated mutations only', () => {
    const sameOrigin = request({ method: 'POST', headers: { origin: 'http://127.0.0.1:3310' } })
    expect(authorize(cookieOperator, 'operator', sameOrigin, true)).toEqual(cookieOperator.principal)
    expectApiError(() => authorize(cookieOperator, 'operator', request({ method: 'POST' }), true), 'FORBIDDEN')
    expectApiError(
      () => authorize(cookieOperator, 'operator', request({ method: 'POST', headers: { origin: 'http://evil.example' } }), true),
      'FORBIDDEN',
    )
    expect(authorize(cookieOperator, 'viewer', request(), false)).toEqual(cookieOperator.principal)
    // API clients send no Origin.
    expect(authorize(operator, 'operator', request({ method: 'POST' }), true)).toEqual(operator.principal)
  })

  it('holds a scoped operator to the mirrors its grant names, and names the reason and the resource', () => {
    const post = request({ method: 'POST' })
    expect(authorize(scoped, 'operator', post, true, { mirror: 'orders-to-eu-west' })).toMatchObject({ actor: 'user:alice@example.com' })
    expect(authorize(scoped, 'viewer', request(), false, { mirror: 'orders-to-us-east' })).not.toBeNull()
    expect(authorize(scoped, 'viewer', request(), false, null)).not.toBeNull()
    const refused = expectApiError(() => authorize(scoped, 'operator', post, true, { mirror: 'orders-to-us-east' }), 'FORBIDDEN')
    expect(refused.message).toBe('your operator role does not extend to mirror orders-to-us-east')
    expect(refused.details).toEqual({ required: 'operator', mirror: 'orders-to-us-east' })
    expectApiError(() => authorize(scoped, 'operator', post, true, { cluster: 'eu-west' }), 'FORBIDDEN')
    // Creating something needs the role everywhere; a handler that finds the mirror itself checks after.
    expectApiError(() => authorize(scoped, 'operator', post, true, null), 'FORBIDDEN')
    expect(authorize(scoped, 'operator', post, true, 'somewhere')).not.toBeNull()
    expectApiError(() => authorize(scoped, 'admin', post, true, 'somewhere'), 'FORBIDDEN')
    expectApiError(() => authorize(viewer, 'operator', post, true, 'somewhere'), 'FORBIDDEN')
  })

  it('lets the operator token do what an admin does, and nothing less than before', () => {
    const post = request({ method: 'POST' })
    expect(authorize(operator, 'admin', post, true, null)).not.toBeNull()
    expect(authorize(operator, 'operator', post, true, { mirror: 'any' })).not.toBeNull()
    expectApiError(() => authorize(cookieOperator, 'admin', request({ method: 'POST', headers: { origin: 'http://127.0.0.1:3310' } }), true, null), 'FORBIDDEN')
  })

  it('refuses any mutation that names another origin, bearer or not', () => {
    expectApiError(() => authorize(operator, 'operator', request({ method: 'POST', headers: { origin: 'http://evil.example' } }), true), 'FORBIDDEN')
    expectApiError(() => authorize({ status: 'anonymous' }, 'public', request({ method: 'POST', headers: { origin: 'null' } }), true), 'FORBIDDEN')
  })
})

describe('helpers', () => {
  it('compares Origin with the Host (or X-Forwarded-Host) the request was sent to', () => {
    expect(isSameOrigin(request({ headers: { origin: 'http://127.0.0.1:3310' } }))).toBe(true)
    expect(isSameOrigin(request({ headers: { origin: 'http://127.0.0.1:3311' } }))).toBe(false)
    expect(isSameOrigin(request({ headers: { origin: 'not a url' } }))).toBe(false)
    expect(isSameOrigin(request())).toBe(false)
    expect(isSameOrigin(request({ headers: { origin: 'https://board.example', 'x-forwarded-host': 'board.example' } }))).toBe(true)
  })

  it('parses cookie headers', () => {
    expect(parseCookies('a=1; b = two ; c=%41;broken')).toEqual(new Map([['a', '1'], ['b', 'two'], ['c', 'A']]))
    expect(parseCookies(null).size).toBe(0)
  })
})

describe('sessions of people signed in through the identity provider', () => {
  const rules = parseRolesFile('rules:\n  - group: dr-eu\n    role: operator\n    mirrors: [".*-to-eu-west"]\n  - group: dr-eu\n    role: viewer\n')
  const alice = { subject: 'u-alice', name: 'Alice Example', email: 'alice@example.com', groups: ['dr-eu'] }

  it('names the person, recomputes their scoped grants, and ends after the idle time or the absolute one', async () => {
    let now = 1_000_000
    const sessions = await SessionStore.open(dir, () => now)
    const auth = new Auth(tokens, sessions, { rules, sessionIdleMs: 60_000 })
    const { principal, setCookie } = await auth.loginPerson(alice, request({ method: 'POST' }))
    expect(principal).toMatchObject({ role: 'operator', actor: 'user:alice@example.com', actorName: 'Alice Example <alice@example.com>', method: 'oidc', subject: 'u-alice' })
    const cookie = setCookie.split(';')[0] ?? ''
    expect(setCookie).toContain('HttpOnly; SameSite=Strict')
    // The file keeps the identity but never the session id.
    const stored = readFileSync(path.join(dir, 'sessions.json'), 'utf8')
    expect(stored).toContain('alice@example.com')
    expect(stored).not.toContain(cookie.split('=')[1] ?? 'x')

    now += 59_000
    expect(auth.authenticate(request({ headers: { cookie } }))).toMatchObject({ status: 'authenticated', principal: { grants: [{ role: 'operator', mirrors: ['.*-to-eu-west'] }, { role: 'viewer' }] } })
    now += 59_000 // used 59 s ago: still alive
    expect(auth.authenticate(request({ headers: { cookie } })).status).toBe('authenticated')
    now += 61_000 // unused for 61 s
    expect(auth.authenticate(request({ headers: { cookie } })).status).toBe('invalid')

    const again = (await auth.loginPerson(alice, request({ method: 'POST' }))).setCookie.split(';')[0] ?? ''
    for (let step = 0; step < Math.ceil(SESSION_TTL_MS / 59_000); step += 1) {
      now += 59_000
      auth.authenticate(request({ headers: { cookie: again } }))
    }
    expect(auth.authenticate(request({ headers: { cookie: again } })).status).toBe('invalid')
  })

  it('keeps the ID token with the session on the server (a restart too) for the sign-out hint, never in the cookie or the principal', async () => {
    const idToken = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1LWFsaWNlIn0.c2lnbmF0dXJl'
    const auth = new Auth(tokens, await SessionStore.open(dir), { rules })
    const { principal, setCookie } = await auth.loginPerson(alice, request({ method: 'POST' }), idToken)
    const cookie = setCookie.split(';')[0] ?? ''
    expect(setCookie).not.toContain(idToken)
    expect(JSON.stringify(principal)).not.toContain(idToken)
    expect(statSync(path.join(dir, 'sessions.json')).mode & 0o777).toBe(0o600)
    const afterRestart = new Auth(tokens, await SessionStore.open(dir), { rules })
    expect(afterRestart.sessionOf(request({ headers: { cookie } }))?.idToken).toBe(idToken)
    await afterRestart.logout(request({ method: 'POST', headers: { cookie } }))
    expect(readFileSync(path.join(dir, 'sessions.json'), 'utf8')).not.toContain(idToken)
  })

  it('refuses a person the roles file gives nothing, and ends the session of one it no longer does', async () => {
    const sessions = await SessionStore.open(dir)
    const auth = new Auth(tokens, sessions, { rules })
    await expect(auth.loginPerson({ subject: 'u-carol', email: 'carol@example.com', groups: ['marketing'] }, request({ method: 'POST' }))).rejects.toMatchObject({ reason: 'no-role' })
    const cookie = (await auth.loginPerson(alice, request({ method: 'POST' }))).setCookie.split(';')[0] ?? ''
    const afterRolesChanged = new Auth(tokens, await SessionStore.open(dir), { rules: [] })
    expect(afterRolesChanged.authenticate(request({ headers: { cookie } }))).toMatchObject({ status: 'invalid', message: expect.stringContaining('no longer have a role') })
  })

  it('keeps at most 50 sessions per person, and a person signing in ends no token session', async () => {
    const sessions = await SessionStore.open(dir)
    const auth = new Auth(tokens, sessions, { rules })
    const operatorCookie = (await auth.login(tokens.operator, request({ method: 'POST' }))).setCookie.split(';')[0] ?? ''
    const first = (await auth.loginPerson(alice, request({ method: 'POST' }))).setCookie.split(';')[0] ?? ''
    for (let index = 0; index < 50; index += 1) await auth.loginPerson(alice, request({ method: 'POST' }))
    expect(auth.authenticate(request({ headers: { cookie: first } })).status).toBe('invalid')
    expect(auth.authenticate(request({ headers: { cookie: operatorCookie } })).status).toBe('authenticated')
    expect(sessions.size).toBe(51)
  })

  it('turns token sign-in off for people when asked, and keeps bearer tokens working', async () => {
    const auth = new Auth(tokens, await SessionStore.open(dir), { tokenSignIn: false })
    await expect(auth.login(tokens.operator, request({ method: 'POST' }))).rejects.toMatchObject({ code: 'FORBIDDEN' })
    expect(auth.authenticate(request({ headers: { authorization: `Bearer ${tokens.operator}` } })).status).toBe('authenticated')
  })
})
