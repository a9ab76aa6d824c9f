import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignInRefused } from '@/lib/auth/id-token-claims'
import { OidcTestProvider, signInThroughForm } from '@/server/testing/oidc-test-provider'
import { OidcClient, type OidcSettings } from './oidc-client'
import { PENDING_TTL_MS, PendingSignIns } from './pending-sign-ins'
import { ProviderSignIn, STATE_COOKIE } from './provider-sign-in'

/** Goes through the test provider's login form from the URL a sign-in start sent the browser to; the callback's query. */
async function loginAt(url: string, user = 'alice'): Promise<URLSearchParams> {
  return (await signInThroughForm(url, user)).searchParams
}

describe('sign-ins under way across a restart', () => {
  const provider = new OidcTestProvider({ clientId: 'mirrorboard', clientSecret: 'pending-secret', redirectUris: ['http://127.0.0.1:4398/api/v1/auth/oidc/callback'] })
  let settings: OidcSettings
  let dir: string

  beforeAll(async () => {
    const issuer = await provider.start()
    settings = { issuer, clientId: 'mirrorboard', clientSecret: 'pending-secret', publicUrl: 'http://127.0.0.1:4398', scopes: ['openid', 'profile', 'email'], groupsClaim: 'groups', providerName: 'Test' }
    dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-pending-'))
  })
  afterAll(() => {
    provider.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  let lastPending: PendingSignIns | null = null
  const instance = async () => {
    lastPending = await PendingSignIns.open(dir)
    return new ProviderSignIn(new OidcClient(settings), Date.now, lastPending)
  }

  it('finishes a sign-in started before the restart, once, and keeps the file private', async () => {
    const before = await instance()
    const { location, setCookie } = await before.start('/mirrors/dr', false)
    const state = new RegExp(`^${STATE_COOKIE}=([^;]+)`).exec(setCookie)?.[1]
    expect(state).toBeDefined()
    expect(statSync(path.join(dir, 'pending-sign-ins.json')).mode & 0o777).toBe(0o600)
    const params = await loginAt(location)

    // The server restarts while the person is at the provider's form.
    const after = await instance()
    const { identity, next } = await after.finish(params, state)
    expect(identity).toMatchObject({ subject: 'u-alice', email: 'alice@example.com' })
    expect(next).toBe('/mirrors/dr')

    // Used once, here and after another restart.
    await expect(after.finish(params, state)).rejects.toBeInstanceOf(SignInRefused)
    await lastPending?.flush()
    await expect((await instance()).finish(params, state)).rejects.toThrow(/unknown, was already used/)
  })

  it('drops sign-ins older than ten minutes when it reads them back', async () => {
    let now = 5_000_000
    const pending = await PendingSignIns.open(dir, () => now)
    await pending.add({ state: 'old-state', nonce: 'n', codeVerifier: 'v', next: '/', createdAt: now })
    now += PENDING_TTL_MS
    const reopened = await PendingSignIns.open(dir, () => now)
    expect(reopened.take('old-state')).toBeNull()
  })
})
