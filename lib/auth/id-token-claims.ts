/**
 * The claim checks of an OpenID Connect ID token (OpenID Connect Core 1.0 §3.1.3.7), once its signature has been
 * verified (server/identity/id-token.ts): issued by our provider, for us, not expired, for this sign-in.
 * Pure, so each refusal is tested without a provider.
 */

export type SignInRefusal =
  | 'provider-error'
  | 'state'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not-yet-valid'
  | 'nonce'
  | 'signature'
  | 'malformed'
  | 'no-role'
  | 'provider-unreachable'

/** A sign-in the server refused, with the reason a person (and the audit log) reads. */
export class SignInRefused extends Error {
  constructor(
    readonly reason: SignInRefusal,
    message: string,
  ) {
    super(message)
    this.name = 'SignInRefused'
  }
}

/**
 * By name, not `instanceof`: the runtime (built from instrumentation's bundle) and a route handler hold different
 * copies of this module under Next.js, so an error thrown by one is not an instance of the other's class.
 */
export function isSignInRefused(error: unknown): error is SignInRefused {
  return error instanceof Error && error.name === 'SignInRefused' && typeof (error as { reason?: unknown }).reason === 'string'
}

export interface IdTokenClaims {
  iss: string
  sub: string
  aud: string | string[]
  exp: number
  iat: number
  nonce?: string
  azp?: string
  name?: string
  email?: string
  preferred_username?: string
  [claim: string]: unknown
}

export interface ClaimExpectations {
  issuer: string
  clientId: string
  nonce: string
  /** ms */
  now: number
  /** Seconds of clock difference forgiven between us and the provider. */
  skewSeconds?: number
}

const DEFAULT_SKEW_SECONDS = 60

/** Checks the claims and returns them typed; anything off throws SignInRefused. */
export function checkIdTokenClaims(payload: unknown, expected: ClaimExpectations): IdTokenClaims {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new SignInRefused('malformed', 'the ID token has no claims object')
  const claims = payload as Record<string, unknown>
  const skew = expected.skewSeconds ?? DEFAULT_SKEW_SECONDS
  const nowSeconds = expected.now / 1000
  if (claims.iss !== expected.issuer) throw new SignInRefused('issuer', `the ID token was issued by ${JSON.stringify(claims.iss)}, not by ${expected.issuer}`)
  const audience = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) && claims.aud.every((entry) => typeof entry === 'string') ? (claims.aud as string[]) : null
  if (audience === null || !audience.includes(expected.clientId)) throw new SignInRefused('audience', 'the ID token was issued for another application (its audience is not this client)')
  // With several audiences the token must say it was issued to us (authorized party).
  if ((audience.length > 1 || claims.azp !== undefined) && claims.azp !== expected.clientId) {
    throw new SignInRefused('audience', 'the ID token was issued to another party (azp)')
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new SignInRefused('malformed', 'the ID token names no subject')
  if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) throw new SignInRefused('malformed', 'the ID token has no expiry')
  if (claims.exp + skew <= nowSeconds) throw new SignInRefused('expired', 'the ID token has expired')
  if (typeof claims.iat !== 'number' || !Number.isFinite(claims.iat)) throw new SignInRefused('malformed', 'the ID token has no issue time')
  if (claims.iat - skew > nowSeconds) throw new SignInRefused('not-yet-valid', 'the ID token was issued in the future (are the clocks in step?)')
  if (typeof claims.nbf === 'number' && claims.nbf - skew > nowSeconds) throw new SignInRefused('not-yet-valid', 'the ID token is not valid yet')
  if (claims.nonce !== expected.nonce) throw new SignInRefused('nonce', 'the ID token does not belong to this sign-in (nonce)')
  return claims as IdTokenClaims
}

/** The groups claim as a list of names; a provider that sends one group as a string is forgiven. */
export function groupsOf(claims: IdTokenClaims, claim: string): string[] {
  const value = claims[claim]
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string')
  return []
}
