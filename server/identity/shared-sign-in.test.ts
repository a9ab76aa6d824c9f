import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OidcTestProvider, signInThroughForm } from '@/server/testing/oidc-test-provider'
import { MemoryIdentityTopic } from '@/server/testing/memory-identity-topic'
import { OidcClient, type OidcSettings } from './oidc-client'
import { PendingSignIns } from './pending-sign-ins'
import { ProviderSignIn, STATE_COOKIE } from './provider-sign-in'

/**
 * Issue #40 with sign-in through the identity provider: a browser starts signing in at one instance and the
 * provider sends it back to another (a load balancer without sticky sessions). The sign-in under way is shared
 * (server/ha/shared-identity.ts, here its fake), read at once when the callback brings a state not known yet, and
 * used once across the group.
 */
describe('a sign-in started at one instance and finished at another', () => {
  const provider = new OidcTestProvider({ clientId: 'mirrorboard', clientSecret: 'shared-secret', redirectUris: ['http://127.0.0.1:4399/api/v1/auth/oidc/callback'] })
  let settings: OidcSettings

  beforeAll(async () => {
    const issuer = await provider.start()
    settings = { issuer, clientId: 'mirrorboard', clientSecret: 'shared-secret', publicUrl: 'http://127.0.0.1:4399', scopes: ['openid', 'profile', 'email'], groupsClaim: 'groups', providerName: 'Test' }
  })
  afterAll(() => provider.stop())

  it('finishes at the other instance once that one reads the shared record, and never twice', async () => {
    const topic = new MemoryIdentityTopic()
    const instances = [0, 1].map(() => {
      const signIn = new ProviderSignIn(new OidcClient(settings), Date.now, new PendingSignIns())
      topic.attach(signIn.pending)
      signIn.setSharedRefresh(async () => topic.deliver(signIn.pending))
      return signIn
    })
    const [first, second] = instances as [ProviderSignIn, ProviderSignIn]
    const { location, setCookie } = await first.start('/mirrors/dr', false)
    const state = new RegExp(`^${STATE_COOKIE}=([^;]+)`).exec(setCookie)?.[1]
    // Published before the browser was sent to the provider.
    expect(topic.records.map(({ key }) => key)).toEqual([`pending-sign-in/${state}`])
    const params = (await signInThroughForm(location, 'alice')).searchParams

    // The second instance has not polled the topic yet: the unknown state makes it read before refusing.
    const { identity, next } = await second.finish(params, state)
    expect(identity).toMatchObject({ subject: 'u-alice', email: 'alice@example.com' })
    expect(next).toBe('/mirrors/dr')

    // The callback replayed at the first instance, once it has read the second's tombstone (its next poll of the
    // topic), finds nothing; before that the provider's one-time code refuses it.
    expect(topic.records.at(-1)).toEqual({ key: `pending-sign-in/${state}`, value: null })
    topic.deliver(first.pending)
    await expect(first.finish(params, state)).rejects.toThrow(/unknown, was already used/)
  })
})
