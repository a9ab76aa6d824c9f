import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isApiError } from '@/lib/api/errors'
import { Auth, MAX_SESSIONS_PER_ROLE, SESSION_COOKIE, SessionStore, authorize } from './auth'
import { AuthThrottle, DEFAULT_AUTH_THROTTLE } from './auth-throttle'

/** Issue #41 item 5: sessions an attacker cannot evict, and limits on presenting tokens per source. */

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-auth-limits-'))
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
})
afterEach(() => {
  vi.restoreAllMocks()
  rmSync(dir, { recursive: true, force: true })
})

const tokens = { operator: 'op-secret-token', viewer: 'view-secret-token' }
const from = (address: string, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1:3310/api/v1/session', { method: 'POST', headers: { host: '127.0.0.1:3310', 'x-mirrorboard-client-address': address, ...headers } })

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return isApiError(error) ? error.code : String(error)
  }
  return 'accepted'
}

describe('sessions', () => {
  it('evicts only within the signing-in role: viewer sign-ins past the cap never end an operator session', async () => {
    const sessions = await SessionStore.open(dir)
    const auth = new Auth(tokens, sessions, { throttle: new AuthThrottle(Date.now, { ...DEFAULT_AUTH_THROTTLE, signInBurst: 1e9 }) })
    const operator = await auth.login(tokens.operator, from('10.0.0.1'))
    const operatorCookie = operator.setCookie.split(';')[0] ?? ''
    const first = await auth.login(tokens.viewer, from('10.0.0.2'))
    for (let n = 0; n < MAX_SESSIONS_PER_ROLE; n++) await auth.login(tokens.viewer, from('10.0.0.2'))
    expect(sessions.size).toBe(MAX_SESSIONS_PER_ROLE + 1)
    expect(auth.authenticate(new Request('http://h/', { headers: { cookie: operatorCookie } }))).toMatchObject({ status: 'authenticated', principal: { role: 'operator' } })
    // The oldest viewer session went to make room for the newest.
    expect(auth.authenticate(new Request('http://h/', { headers: { cookie: first.setCookie.split(';')[0] ?? '' } })).status).toBe('invalid')
  })

  it('ends the presented session when its holder signs in again', async () => {
    const sessions = await SessionStore.open(dir)
    const auth = new Auth(tokens, sessions)
    const first = await auth.login(tokens.viewer, from('10.0.0.3'))
    const cookie = first.setCookie.split(';')[0] ?? ''
    await auth.login(tokens.operator, from('10.0.0.3', { cookie }))
    expect(sessions.size).toBe(1)
    expect(auth.authenticate(new Request('http://h/', { headers: { cookie } })).status).toBe('invalid')
    expect(cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true)
  })
})

describe('AuthThrottle', () => {
  it('limits sign-ins per source to a burst refilled over time', () => {
    let now = 0
    const throttle = new AuthThrottle(() => now)
    for (let n = 0; n < DEFAULT_AUTH_THROTTLE.signInBurst; n++) expect(throttle.admitSignIn('a').ok).toBe(true)
    expect(throttle.admitSignIn('a')).toMatchObject({ ok: false, limit: 'sign-in' })
    expect(throttle.admitSignIn('b').ok).toBe(true)
    now += DEFAULT_AUTH_THROTTLE.signInRefillMs
    expect(throttle.admitSignIn('a').ok).toBe(true)
    expect(throttle.admitSignIn('a').ok).toBe(false)
  })

  it('backs a failing source off for doubling times, and forgets once its bucket has refilled', () => {
    let now = 0
    const throttle = new AuthThrottle(() => now, { ...DEFAULT_AUTH_THROTTLE, failureBurst: 3, failureRefillMs: 1000 })
    expect([throttle.failure('a'), throttle.failure('a'), throttle.failure('a')]).toEqual([false, false, true])
    expect(throttle.check('a')).toMatchObject({ ok: false, retryAfterMs: 1000 })
    expect(throttle.check('b').ok).toBe(true)
    now += 1000
    expect(throttle.check('a').ok).toBe(true)
    expect(throttle.failure('a')).toBe(true)
    expect(throttle.check('a')).toMatchObject({ ok: false, retryAfterMs: 2000 })
    now += 2000
    expect(throttle.failure('a')).toBe(true)
    expect(throttle.check('a')).toMatchObject({ ok: false, retryAfterMs: 4000 })
    now += 60_000
    expect(throttle.failure('a')).toBe(false)
  })
})

describe('Auth with the throttle', () => {
  it('refuses a backing-off source’s tokens unchecked, counts failures and refusals in its metrics', async () => {
    const auth = new Auth(tokens, await SessionStore.open(dir), { throttle: new AuthThrottle(Date.now, { ...DEFAULT_AUTH_THROTTLE, failureBurst: 2 }) })
    const bearer = (token: string, address: string) =>
      new Request('http://h/api/v1/clusters', { headers: { authorization: `Bearer ${token}`, 'x-mirrorboard-client-address': address } })
    expect(auth.authenticate(bearer('guess-1', '10.0.0.9')).status).toBe('invalid')
    expect(await rejection(auth.login('guess-2', from('10.0.0.9')))).toBe('UNAUTHENTICATED')
    const throttled = auth.authenticate(bearer(tokens.viewer, '10.0.0.9'))
    expect(throttled.status).toBe('throttled')
    try {
      authorize(throttled, 'viewer', bearer(tokens.viewer, '10.0.0.9'), false)
      expect.unreachable()
    } catch (error) {
      expect(isApiError(error) ? [error.code, error.details?.retryAfterSeconds] : error).toEqual(['TOO_MANY_REQUESTS', 1])
    }
    expect(await rejection(auth.login(tokens.viewer, from('10.0.0.9')))).toBe('TOO_MANY_REQUESTS')
    expect(auth.authenticate(bearer(tokens.viewer, '10.0.0.10')).status).toBe('authenticated')
    const families = Object.fromEntries(auth.metricFamilies().map((family) => [family.name, family.samples]))
    expect(families.mirrorboard_auth_failures_total).toEqual([
      { labels: { via: 'sign-in' }, value: 1 },
      { labels: { via: 'bearer' }, value: 1 },
    ])
    expect(families.mirrorboard_auth_throttled_total).toEqual([
      { labels: { limit: 'sign-in' }, value: 0 },
      { labels: { limit: 'failures' }, value: 2 },
    ])
  })
})
