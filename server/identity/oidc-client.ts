import 'server-only'
import * as openid from 'openid-client'
import { groupsOf, SignInRefused, type IdTokenClaims, type SignInRefusal } from '@/lib/auth/id-token-claims'

/**
 * The relying party of OpenID Connect's authorization code flow with PKCE (S256), done by `openid-client`:
 * discovery, the authorization request (state, nonce, code challenge), the callback's checks (state, RFC 9207
 * `iss`), the code exchanged at the token endpoint with the client secret, and the ID token validated (issuer,
 * audience, expiry, nonce, and its signature against the provider's JWKS — non-repudiation checks on, so a
 * provider reached over plain http on loopback is held to the same standard as one behind TLS). This file only
 * chooses the options and turns the library's errors into the refusals a person and the audit log read.
 */

export interface OidcSettings {
  issuer: string
  clientId: string
  /** Absent for a public client (PKCE alone). */
  clientSecret: string | undefined
  /** Where the browser reaches Mirrorboard; the redirect URI is `<publicUrl>/api/v1/auth/oidc/callback`. */
  publicUrl: string
  scopes: string[]
  /** The ID token claim that lists the person's groups. */
  groupsClaim: string
  /** "Sign in with <providerName>". */
  providerName: string
}

/** What the server keeps between sending the browser to the provider and its return. */
export interface PendingSignIn {
  state: string
  nonce: string
  codeVerifier: string
  /** The page to open after signing in (already checked to be a path of this app). */
  next: string
  createdAt: number
}

export interface SignedInIdentity {
  subject: string
  name: string | undefined
  email: string | undefined
  groups: string[]
}

export const CALLBACK_PATH = '/api/v1/auth/oidc/callback'
const DISCOVERY_TTL_MS = 60 * 60 * 1000
const TIMEOUT_SECONDS = 10

function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = []
  for (let at: unknown = error; at !== undefined && at !== null && chain.length < 5; at = (at as { cause?: unknown }).cause) chain.push(at)
  return chain
}

/** The library's refusal in our words; anything it did not refuse is rethrown as it is. */
export function refusalOf(error: unknown, issuer: string): SignInRefused {
  if (error instanceof SignInRefused) return error
  if (error instanceof openid.AuthorizationResponseError) {
    return new SignInRefused('provider-error', `the identity provider answered ${error.error.slice(0, 100)}${error.error_description ? `: ${error.error_description.slice(0, 200)}` : ''}`)
  }
  if (error instanceof openid.ResponseBodyError) {
    return new SignInRefused('provider-error', `the identity provider refused (${error.status}): ${error.error.slice(0, 100)}${error.error_description ? ` (${error.error_description.slice(0, 200)})` : ''}`)
  }
  if (error instanceof openid.WWWAuthenticateChallengeError) {
    const said = error.cause.map((challenge) => challenge.parameters.error).find((value) => typeof value === 'string')
    const description = error.cause.map((challenge) => challenge.parameters.error_description).find((value) => typeof value === 'string')
    return new SignInRefused('provider-error', `the identity provider refused (${error.status})${said === undefined ? '' : `: ${said.slice(0, 100)}`}${description === undefined ? '' : ` (${description.slice(0, 200)})`}`)
  }
  const chain = causesOf(error)
  const code = chain.map((link) => (link as { code?: unknown }).code).find((value): value is string => typeof value === 'string' && value.startsWith('OAUTH_'))
  const detail = chain.find((link): link is { claim?: unknown; attribute?: unknown } => typeof link === 'object' && link !== null && ('claim' in link || 'attribute' in link))
  const message = chain.map((link) => (link instanceof Error ? link.message : '')).join(' ')
  const refused = (reason: SignInRefusal, words: string) => new SignInRefused(reason, words)
  if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' && detail?.attribute === 'issuer') return refused('issuer', `the discovery document at ${issuer} names another issuer`)
  if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED') {
    if (detail?.claim === 'iss') return refused('issuer', `the ID token was issued by another identity provider, not by ${issuer}`)
    if (detail?.claim === 'aud' || detail?.claim === 'azp') return refused('audience', 'the ID token was issued for another application (its audience is not this client)')
    if (detail?.claim === 'nonce') return refused('nonce', 'the ID token does not belong to this sign-in (nonce)')
  }
  if (code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') {
    return detail?.claim === 'exp' ? refused('expired', 'the ID token has expired') : refused('not-yet-valid', 'the ID token is not valid yet (are the clocks in step?)')
  }
  if (code === 'OAUTH_INVALID_RESPONSE' && /"state"/.test(message)) return refused('state', 'the sign-in came back with another state')
  if (code === 'OAUTH_INVALID_RESPONSE' && /"iss" \(issuer\)/.test(message)) return refused('issuer', `the sign-in came back from another identity provider, not from ${issuer}`)
  if (code === 'OAUTH_KEY_SELECTION_FAILED' || /signature verification failed/.test(message)) return refused('signature', 'the ID token is not signed by the identity provider\'s published keys')
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || (error instanceof TypeError && /fetch failed/.test(error.message))) {
    return refused('provider-unreachable', `the identity provider did not answer at ${new URL(issuer).origin}: ${message.slice(0, 200)}`)
  }
  if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON') return refused('provider-error', `the identity provider answered unexpectedly: ${message.slice(0, 200)}`)
  if (code !== undefined) return refused('malformed', `the identity provider's answer is not usable: ${message.slice(0, 200)}`)
  throw error
}

export class OidcClient {
  private configuration: { value: Promise<openid.Configuration>; at: number } | null = null

  constructor(
    readonly settings: OidcSettings,
    private readonly now: () => number = Date.now,
  ) {}

  get redirectUri(): string {
    return `${this.settings.publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`
  }

  private async discover(): Promise<openid.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings
    // The issuer's own scheme decides whether plain http endpoints are accepted (a loopback test provider).
    const insecure = issuer.startsWith('http:') ? [openid.allowInsecureRequests] : []
    const found = await openid.discovery(new URL(issuer), clientId, undefined, openid.None(), { execute: insecure, timeout: TIMEOUT_SECONDS })
    const server = found.serverMetadata()
    // The secret goes as HTTP Basic unless the provider takes it only in the body.
    const methods = server.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
    const authentication =
      clientSecret === undefined ? openid.None() : methods.includes('client_secret_basic') || !methods.includes('client_secret_post') ? openid.ClientSecretBasic(clientSecret) : openid.ClientSecretPost(clientSecret)
    const configuration = new openid.Configuration(server, clientId, undefined, authentication)
    configuration.timeout = TIMEOUT_SECONDS
    for (const extension of insecure) extension(configuration)
    openid.enableNonRepudiationChecks(configuration)
    return configuration
  }

  /** The provider's configuration, discovered once an hour; a failed discovery is tried again at the next sign-in. */
  private async config(): Promise<openid.Configuration> {
    const cached = this.configuration
    if (cached !== null && this.now() - cached.at < DISCOVERY_TTL_MS) return cached.value
    const value = this.discover()
    this.configuration = { value, at: this.now() }
    try {
      return await value
    } catch (error) {
      if (this.configuration?.value === value) this.configuration = null
      throw refusalOf(error, this.settings.issuer)
    }
  }

  /** Where to send the browser, and what to remember until it comes back. */
  async startSignIn(next: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.config()
    const pending: PendingSignIn = { state: openid.randomState(), nonce: openid.randomNonce(), codeVerifier: openid.randomPKCECodeVerifier(), next, createdAt: this.now() }
    const url = openid.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: ['openid', ...this.settings.scopes.filter((scope) => scope !== 'openid')].join(' '),
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await openid.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    })
    return { url: url.toString(), pending }
  }

  /**
   * Finishes the sign-in the browser came back from: `params` are the callback's query, `pending` what
   * startSignIn remembered for its state (the caller matched the state against the browser's cookie).
   */
  async finishSignIn(params: URLSearchParams, pending: PendingSignIn): Promise<{ identity: SignedInIdentity; claims: IdTokenClaims; idToken: string }> {
    const config = await this.config()
    const callback = new URL(this.redirectUri)
    callback.search = params.toString()
    let claims: IdTokenClaims
    let idToken: string
    try {
      const tokens = await openid.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      })
      const validated = tokens.claims()
      if (validated === undefined) throw new SignInRefused('malformed', 'the identity provider answered no ID token')
      claims = validated as IdTokenClaims
      if (tokens.id_token === undefined) throw new SignInRefused('malformed', 'the identity provider answered no ID token')
      idToken = tokens.id_token
    } catch (error) {
      throw refusalOf(error, this.settings.issuer)
    }
    const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined)
    return {
      claims,
      idToken,
      identity: {
        subject: claims.sub,
        name: text(claims.name) ?? text(claims.preferred_username),
        // An address the provider has not verified names nobody in particular.
        email: claims.email_verified === false ? undefined : text(claims.email),
        groups: groupsOf(claims, this.settings.groupsClaim).slice(0, 500),
      },
    }
  }

  /**
   * The provider's sign-out page (RP-initiated logout), when it has one; back to our sign-in page after.
   * `idToken`: the ID token the session signed in with, sent as `id_token_hint` so the provider knows whose
   * session ends and may send the browser back without asking (providers refuse or ask without it).
   */
  async endSessionUrl(idToken?: string): Promise<string | null> {
    let config: openid.Configuration
    try {
      config = await this.config()
    } catch {
      return null
    }
    if (config.serverMetadata().end_session_endpoint === undefined) return null
    const postLogoutRedirectUri = `${this.settings.publicUrl.replace(/\/+$/, '')}/login?signedOut=1`
    return openid.buildEndSessionUrl(config, { ...(idToken === undefined ? {} : { id_token_hint: idToken }), post_logout_redirect_uri: postLogoutRedirectUri }).toString()
  }
}
