/**
 * What Mirrorboard reads from an OpenID Connect ID token once `openid-client` has validated it
 * (server/identity/oidc-client.ts), and the refusals of a sign-in in the words the sign-in page and the audit
 * log use.
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

/** The groups claim as a list of names; a provider that sends one group as a string is forgiven. */
export function groupsOf(claims: IdTokenClaims, claim: string): string[] {
  const value = claims[claim]
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string')
  return []
}
