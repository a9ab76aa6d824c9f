import 'server-only'
import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto'
import { SignInRefused } from '@/lib/auth/id-token-claims'

/**
 * Verifies the signature of an ID token (a compact JWS) against the provider's published keys (JWKS), with
 * node:crypto. Only asymmetric algorithms are accepted: `none` and the HMAC family (whose key would be our
 * client secret, and which a forged header could pick) never verify. The key is chosen by `kid` and must be of
 * the algorithm's type; a `kid` we do not know makes the key set refetch once (the provider rotated its keys).
 */

interface Algorithm {
  kty: 'RSA' | 'EC' | 'OKP'
  hash: string | null
  pss?: boolean
  crv?: string
}

const ALGORITHMS: Record<string, Algorithm> = {
  RS256: { kty: 'RSA', hash: 'sha256' },
  RS384: { kty: 'RSA', hash: 'sha384' },
  RS512: { kty: 'RSA', hash: 'sha512' },
  PS256: { kty: 'RSA', hash: 'sha256', pss: true },
  PS384: { kty: 'RSA', hash: 'sha384', pss: true },
  PS512: { kty: 'RSA', hash: 'sha512', pss: true },
  ES256: { kty: 'EC', hash: 'sha256', crv: 'P-256' },
  ES384: { kty: 'EC', hash: 'sha384', crv: 'P-384' },
  ES512: { kty: 'EC', hash: 'sha512', crv: 'P-521' },
  EdDSA: { kty: 'OKP', hash: null, crv: 'Ed25519' },
}

export const SUPPORTED_ALGORITHMS = Object.keys(ALGORITHMS)

/** A key set is fetched again for an unknown `kid` at most this often. */
const REFETCH_INTERVAL_MS = 30_000

interface Jwk extends JsonWebKey {
  kid?: string
  use?: string
  alg?: string
}

function decodeSegment(segment: string, what: string): unknown {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) throw new SignInRefused('malformed', `the ID token's ${what} is not base64url`)
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
  } catch {
    throw new SignInRefused('malformed', `the ID token's ${what} is not JSON`)
  }
}

/** The provider's keys, fetched from its `jwks_uri` and kept until a token names a key not among them. */
export class KeySet {
  private keys: Jwk[] | null = null
  private fetchedAt = 0

  constructor(
    private readonly uri: string,
    private readonly fetchJson: (url: string) => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  private async load(): Promise<Jwk[]> {
    const body = await this.fetchJson(this.uri)
    const keys = typeof body === 'object' && body !== null && Array.isArray((body as { keys?: unknown }).keys) ? ((body as { keys: unknown[] }).keys as Jwk[]) : null
    if (keys === null) throw new SignInRefused('provider-error', `the provider's key set (${this.uri}) has no "keys" list`)
    this.keys = keys.filter((key) => typeof key === 'object' && key !== null && key.use !== 'enc')
    this.fetchedAt = this.now()
    return this.keys
  }

  async keyFor(kid: string | undefined, algorithm: string): Promise<KeyObject> {
    const spec = ALGORITHMS[algorithm]
    if (spec === undefined) throw new SignInRefused('signature', `the ID token is signed with ${JSON.stringify(algorithm)}, which is not accepted`)
    const pick = (keys: Jwk[]): Jwk[] =>
      keys.filter((key) => key.kty === spec.kty && (kid === undefined || key.kid === kid) && (key.alg === undefined || key.alg === algorithm) && (spec.crv === undefined || key.crv === spec.crv))
    let candidates = pick(this.keys ?? (await this.load()))
    if (candidates.length === 0 && this.now() - this.fetchedAt >= REFETCH_INTERVAL_MS) candidates = pick(await this.load())
    if (candidates.length === 0) throw new SignInRefused('signature', `the provider publishes no ${algorithm} key${kid === undefined ? '' : ` with id ${kid}`}`)
    if (candidates.length > 1) throw new SignInRefused('signature', 'the ID token names no key id and the provider publishes several keys')
    try {
      return createPublicKey({ key: candidates[0] as JsonWebKey, format: 'jwk' })
    } catch {
      throw new SignInRefused('provider-error', 'the provider published a key that is not a valid public key')
    }
  }
}

/** Verifies the token's signature and returns its payload (unchecked claims: lib/auth/id-token-claims.ts checks them). */
export async function verifyIdTokenSignature(token: string, keys: KeySet): Promise<unknown> {
  const parts = token.split('.')
  if (parts.length !== 3) throw new SignInRefused('malformed', 'the ID token is not a signed JWT')
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts
  const header = decodeSegment(headerPart, 'header')
  if (typeof header !== 'object' || header === null) throw new SignInRefused('malformed', "the ID token's header is not an object")
  const { alg, kid, crit } = header as { alg?: unknown; kid?: unknown; crit?: unknown }
  if (crit !== undefined) throw new SignInRefused('malformed', 'the ID token asks for extensions (crit) this server does not understand')
  if (typeof alg !== 'string') throw new SignInRefused('malformed', 'the ID token names no algorithm')
  if (kid !== undefined && typeof kid !== 'string') throw new SignInRefused('malformed', "the ID token's key id is not text")
  const spec = ALGORITHMS[alg]
  const key = await keys.keyFor(kid as string | undefined, alg)
  if (spec === undefined || !/^[A-Za-z0-9_-]+$/.test(signaturePart)) throw new SignInRefused('signature', 'the ID token is not signed')
  const data = Buffer.from(`${headerPart}.${payloadPart}`, 'ascii')
  const signature = Buffer.from(signaturePart, 'base64url')
  const options =
    spec.kty === 'EC'
      ? { key, dsaEncoding: 'ieee-p1363' as const }
      : spec.pss
        ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
        : key
  let valid = false
  try {
    valid = verify(spec.hash, data, options, signature)
  } catch {
    valid = false
  }
  if (!valid) throw new SignInRefused('signature', "the ID token's signature does not verify against the provider's keys")
  return decodeSegment(payloadPart, 'payload')
}
