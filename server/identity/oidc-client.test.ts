import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignInRefused } from '@/lib/auth/id-token-claims'
import { OidcTestProvider, signInThroughForm, signOutThroughProvider, type Misbehaviour } from '@/server/testing/oidc-test-provider'
import { OidcClient, type OidcSettings } from './oidc-client'

/** Signs in through the test provider's form as a browser would and returns the callback's query. */
async function throughProvider(client: OidcClient, user = 'alice', password = `${user}-pass`) {
  const { url, pending } = await client.startSignIn('/mirrors')
  const back = await signInThroughForm(url, user, password)
  return { params: back.searchParams, pending, back }
}

async function refusalOf(promise: Promise<unknown>): Promise<SignInRefused> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SignInRefused) return error
    throw error
  }
  throw new Error('signed in')
}

describe('OidcClient against a provider that really signs', () => {
  const provider = new OidcTestProvider({ clientId: 'mirrorboard', clientSecret: 's3cret:with/odd chars', redirectUris: ['http://127.0.0.1:4399/api/v1/auth/oidc/callback'] })
  let settings: OidcSettings
  let client: OidcClient

  beforeAll(async () => {
    const issuer = await provider.start()
    settings = { issuer, clientId: 'mirrorboard', clientSecret: 's3cret:with/odd chars', publicUrl: 'http://127.0.0.1:4399', scopes: ['openid', 'profile', 'email'], groupsClaim: 'groups', providerName: 'Test' }
    client = new OidcClient(settings)
  })
  afterAll(() => provider.stop())

  it('sends the browser with state, nonce and an S256 challenge, and signs the person in with their groups', async () => {
    const { url, pending } = await client.startSignIn('/x')
    const sent = new URL(url).searchParams
    expect(Object.fromEntries(sent)).toMatchObject({ response_type: 'code', client_id: 'mirrorboard', redirect_uri: 'http://127.0.0.1:4399/api/v1/auth/oidc/callback', scope: 'openid profile email', state: pending.state, nonce: pending.nonce, code_challenge_method: 'S256' })
    expect(pending.state).not.toBe(pending.nonce)
    expect(pending.codeVerifier.length).toBeGreaterThanOrEqual(43)

    const { params, pending: mine } = await throughProvider(client)
    const { identity } = await client.finishSignIn(params, mine)
    expect(identity).toEqual({ subject: 'u-alice', name: 'Alice Example', email: 'alice@example.com', groups: ['dr-eu'] })
    // The secret went as HTTP Basic (form-encoded first, RFC 6749 §2.3.1), never in the body.
    const last = provider.tokenRequests.at(-1)
    expect(last?.authorization).toBe(`Basic ${Buffer.from('mirrorboard:s3cret%3Awith%2Fodd+chars').toString('base64')}`)
    expect(last?.parameters).not.toContain('client_secret')
    expect(last?.parameters).toContain('code_verifier')
  })

  it('refuses a code from another sign-in, a replayed code, and an answer naming another issuer', async () => {
    const first = await throughProvider(client)
    const second = await throughProvider(client)
    expect((await refusalOf(client.finishSignIn(first.params, second.pending))).reason).toBe('state')
    await client.finishSignIn(second.params, second.pending)
    expect((await refusalOf(client.finishSignIn(second.params, second.pending))).reason).toBe('provider-error')
    // RFC 9207: a callback naming another provider (a mix-up attack) is refused before its code is spent.
    const mixedUp = await throughProvider(client)
    mixedUp.params.set('iss', 'https://evil.example')
    const exchanges = provider.tokenRequests.length
    expect((await refusalOf(client.finishSignIn(mixedUp.params, mixedUp.pending))).reason).toBe('issuer')
    expect(provider.tokenRequests.length).toBe(exchanges)
  })

  const cases: Array<[string, Misbehaviour, string]> = [
    ['from another issuer', { issuer: 'https://other-issuer.example' }, 'issuer'],
    ['for another audience', { audience: 'someone-else' }, 'audience'],
    ['with a wrong nonce', { nonce: 'not-the-one' }, 'nonce'],
    ['that has expired', { expiresIn: -120 }, 'expired'],
    ['signed with a key the provider does not publish', { foreignKey: true }, 'signature'],
  ]
  for (const [what, misbehaviour, reason] of cases) {
    it(`refuses an ID token ${what}`, async () => {
      const { params, pending } = await throughProvider(client)
      provider.misbehave(misbehaviour)
      expect((await refusalOf(client.finishSignIn(params, pending))).reason).toBe(reason)
    })
  }

  it('refuses a provider error, a wrong client secret and a provider whose discovery names another issuer', async () => {
    const { pending } = await client.startSignIn('/')
    const denied = await refusalOf(client.finishSignIn(new URLSearchParams({ error: 'access_denied', error_description: 'no', state: pending.state, iss: settings.issuer }), pending))
    expect(denied).toMatchObject({ reason: 'provider-error', message: 'the identity provider answered access_denied: no' })

    const wrongSecret = new OidcClient({ ...settings, clientSecret: 'nope' })
    const { params, pending: mine } = await throughProvider(wrongSecret)
    expect(await refusalOf(wrongSecret.finishSignIn(params, mine))).toMatchObject({ reason: 'provider-error', message: expect.stringMatching(/^the identity provider refused \(401\): invalid_client/) })

    // The provider's discovery names 127.0.0.1, not the localhost this client was configured with.
    const impostor = new OidcClient({ ...settings, issuer: settings.issuer.replace('127.0.0.1', 'localhost') })
    expect((await refusalOf(impostor.startSignIn('/'))).reason).toBe('issuer')
    const unreachable = new OidcClient({ ...settings, issuer: 'http://127.0.0.1:1' })
    expect((await refusalOf(unreachable.startSignIn('/'))).reason).toBe('provider-unreachable')
  })

  it('signs out at the provider with the session\'s ID token as id_token_hint and where to come back; the provider ends its session', async () => {
    const jar = new Map<string, string>()
    const { url, pending } = await client.startSignIn('/mirrors')
    const { idToken } = await client.finishSignIn((await signInThroughForm(url, 'alice', 'alice-pass', jar)).searchParams, pending)
    // Still signed in at the provider: another sign-in goes through without the password.
    const still = await client.startSignIn('/')
    expect((await signInThroughForm(still.url, 'alice', 'not-the-password', jar)).searchParams.get('code')).toBeTruthy()

    const endSession = new URL((await client.endSessionUrl(idToken)) ?? '')
    expect(endSession.pathname).toBe('/session/end')
    expect(Object.fromEntries(endSession.searchParams)).toEqual({ client_id: 'mirrorboard', id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:4399/login?signedOut=1' })
    // The provider checks the hint: one it did not sign is refused.
    const [header, payload] = idToken.split('.')
    await expect(signOutThroughProvider((await client.endSessionUrl(`${header}.${payload}.AAAA`)) ?? '', new Map(jar))).rejects.toThrow(/id_token_hint/)

    expect((await signOutThroughProvider(endSession.toString(), jar)).toString()).toBe('http://127.0.0.1:4399/login?signedOut=1')
    // Signed out at the provider: the next sign-in asks for the password again (and refuses a wrong one, 401).
    const after = await client.startSignIn('/')
    await expect(signInThroughForm(after.url, 'alice', 'not-the-password', jar)).rejects.toThrow(/answered 401 without its form/)
  })
})
