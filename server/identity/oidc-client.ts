import 'server-only'
import { createHash, randomBytes } from 'node:crypto'
import { checkIdTokenClaims, groupsOf, SignInRefused, type IdTokenClaims } from '@/lib/auth/id-token-claims'
import { KeySet, SUPPORTED_ALGORITHMS, verifyIdTokenSignature } from './id-token'

/**
 * The relying party of OpenID Connect's authorization code flow with PKCE (S256): discovery, the request sent to
 * the provider (state, nonce, code challenge), the code exchanged at the token endpoint with the client secret,
 * the ID token verified (signature against the JWKS, then issuer, audience, expiry, nonce). Everything the
 * provider says is checked; nothing from it is trusted because it came back through the browser.
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

export interface ProviderMetadata {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  jwks_uri: string
  end_session_endpoint?: string
  token_endpoint_auth_methods_supported?: string[]
  code_challenge_methods_supported?: string[]
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
const FETCH_TIMEOUT_MS = 10_000
const MAX_RESPONSE_BYTES = 1024 * 1024

function randomToken(): string {
  return randomBytes(32).toString('base64url')
}

export function codeChallengeOf(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url')
}

function isHttpUrl(value: unknown, allowHttp: boolean): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || (allowHttp && url.protocol === 'http:')
  } catch {
    return false
  }
}

export class OidcClient {
  private metadataCache: { value: ProviderMetadata; at: number } | null = null
  private keySet: KeySet | null = null

  constructor(
    readonly settings: OidcSettings,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly now: () => number = Date.now,
  ) {}

  get redirectUri(): string {
    return `${this.settings.publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`
  }

  private async fetchJson(url: string, init?: RequestInit): Promise<unknown> {
    let response: Response
    try {
      response = await this.fetchImpl(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
    } catch (error) {
      throw new SignInRefused('provider-unreachable', `the identity provider did not answer at ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`)
    }
    const text = await response.text()
    if (text.length > MAX_RESPONSE_BYTES) throw new SignInRefused('provider-error', 'the identity provider answered with more than 1 MiB')
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new SignInRefused('provider-error', `the identity provider answered ${response.status} without JSON at ${new URL(url).pathname}`)
    }
    if (!response.ok) {
      const error = typeof body === 'object' && body !== null ? (body as { error?: unknown; error_description?: unknown }) : {}
      const said = typeof error.error === 'string' ? `: ${error.error}${typeof error.error_description === 'string' ? ` (${error.error_description.slice(0, 200)})` : ''}` : ''
      throw new SignInRefused('provider-error', `the identity provider refused (${response.status})${said}`)
    }
    return body
  }

  /** The provider's discovery document, fetched once an hour; its issuer must be the one configured. */
  async metadata(): Promise<ProviderMetadata> {
    if (this.metadataCache !== null && this.now() - this.metadataCache.at < DISCOVERY_TTL_MS) return this.metadataCache.value
    const issuer = this.settings.issuer
    const body = (await this.fetchJson(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`)) as Partial<ProviderMetadata> | null
    // The issuer's own scheme decides whether plain http endpoints are accepted (a loopback test provider).
    const allowHttp = issuer.startsWith('http:')
    if (body === null || typeof body !== 'object' || body.issuer !== issuer) {
      throw new SignInRefused('issuer', `the discovery document at ${issuer} names another issuer (${JSON.stringify(body?.issuer)})`)
    }
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (!isHttpUrl(body[key], allowHttp)) throw new SignInRefused('provider-error', `the discovery document has no usable ${key}`)
    }
    if (body.end_session_endpoint !== undefined && !isHttpUrl(body.end_session_endpoint, allowHttp)) delete body.end_session_endpoint
    const value = body as ProviderMetadata
    if (this.keySet === null || this.metadataCache?.value.jwks_uri !== value.jwks_uri) this.keySet = new KeySet(value.jwks_uri, (url) => this.fetchJson(url), this.now)
    this.metadataCache = { value, at: this.now() }
    return value
  }

  /** Where to send the browser, and what to remember until it comes back. */
  async startSignIn(next: string): Promise<{ url: string; pending: PendingSignIn }> {
    const metadata = await this.metadata()
    const pending: PendingSignIn = { state: randomToken(), nonce: randomToken(), codeVerifier: randomToken(), next, createdAt: this.now() }
    const url = new URL(metadata.authorization_endpoint)
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('client_id', this.settings.clientId)
    url.searchParams.set('redirect_uri', this.redirectUri)
    url.searchParams.set('scope', ['openid', ...this.settings.scopes.filter((scope) => scope !== 'openid')].join(' '))
    url.searchParams.set('state', pending.state)
    url.searchParams.set('nonce', pending.nonce)
    url.searchParams.set('code_challenge', codeChallengeOf(pending.codeVerifier))
    url.searchParams.set('code_challenge_method', 'S256')
    return { url: url.toString(), pending }
  }

  /**
   * Finishes the sign-in the browser came back from: `params` are the callback's query, `pending` what
   * startSignIn remembered for its state (the caller matched the state against the browser's cookie).
   */
  async finishSignIn(params: URLSearchParams, pending: PendingSignIn): Promise<{ identity: SignedInIdentity; claims: IdTokenClaims }> {
    const metadata = await this.metadata()
    const providerError = params.get('error')
    if (providerError !== null) {
      const description = params.get('error_description')
      throw new SignInRefused('provider-error', `the identity provider answered ${providerError.slice(0, 100)}${description ? `: ${description.slice(0, 200)}` : ''}`)
    }
    if (params.get('state') !== pending.state) throw new SignInRefused('state', 'the sign-in came back with another state')
    // RFC 9207: a provider that names itself must be ours (a mix-up attack sends another provider's code here).
    const iss = params.get('iss')
    if (iss !== null && iss !== this.settings.issuer) throw new SignInRefused('issuer', `the sign-in came back from ${iss.slice(0, 200)}, not from ${this.settings.issuer}`)
    const code = params.get('code')
    if (code === null || code === '') throw new SignInRefused('malformed', 'the sign-in came back without a code')

    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.redirectUri, code_verifier: pending.codeVerifier })
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }
    const { clientId, clientSecret } = this.settings
    const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
    if (clientSecret === undefined) form.set('client_id', clientId)
    else if (methods.includes('client_secret_basic') || !methods.includes('client_secret_post')) {
      // RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
      headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`
    } else {
      form.set('client_id', clientId)
      form.set('client_secret', clientSecret)
    }
    const tokens = (await this.fetchJson(metadata.token_endpoint, { method: 'POST', headers, body: form.toString() })) as { id_token?: unknown; token_type?: unknown } | null
    if (tokens === null || typeof tokens !== 'object' || typeof tokens.id_token !== 'string') throw new SignInRefused('malformed', 'the identity provider answered no ID token')
    const keySet = this.keySet
    if (keySet === null) throw new Error('the key set is made with the metadata')
    const payload = await verifyIdTokenSignature(tokens.id_token, keySet)
    const claims = checkIdTokenClaims(payload, { issuer: this.settings.issuer, clientId, nonce: pending.nonce, now: this.now() })
    const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined)
    return {
      claims,
      identity: {
        subject: claims.sub,
        name: text(claims.name) ?? text(claims.preferred_username),
        // An address the provider has not verified names nobody in particular.
        email: claims.email_verified === false ? undefined : text(claims.email),
        groups: groupsOf(claims, this.settings.groupsClaim).slice(0, 500),
      },
    }
  }

  /** The provider's sign-out page (RP-initiated logout), when it has one; back to our sign-in page after. */
  async endSessionUrl(): Promise<string | null> {
    let metadata: ProviderMetadata
    try {
      metadata = await this.metadata()
    } catch {
      return null
    }
    if (metadata.end_session_endpoint === undefined) return null
    const url = new URL(metadata.end_session_endpoint)
    url.searchParams.set('client_id', this.settings.clientId)
    url.searchParams.set('post_logout_redirect_uri', `${this.settings.publicUrl.replace(/\/+$/, '')}/login?signedOut=1`)
    return url.toString()
  }
}

export { SUPPORTED_ALGORITHMS }
