import { generateKeyPairSync, sign } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { SignInRefused } from '@/lib/auth/id-token-claims'
import { KeySet, verifyIdTokenSignature } from './id-token'

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const rsaJwk = { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'r1' }
const ecJwk = { ...ec.publicKey.export({ format: 'jwk' }), kid: 'e1' }

function keySet(keys: unknown[], fetches: { count: number } = { count: 0 }) {
  return new KeySet('https://id.example/jwks', async () => {
    fetches.count += 1
    return { keys }
  })
}

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SignInRefused) return error.reason
    throw error
  }
  return 'verified'
}

describe('verifyIdTokenSignature', () => {
  const payload = { sub: 'u1' }
  const rs256 = (header: Record<string, unknown>, key = rsa.privateKey) => {
    const data = `${b64(header)}.${b64(payload)}`
    return `${data}.${sign('sha256', Buffer.from(data), key).toString('base64url')}`
  }

  it('verifies RS256 and ES256 against the published keys', async () => {
    expect(await verifyIdTokenSignature(rs256({ alg: 'RS256', kid: 'r1' }), keySet([rsaJwk, ecJwk]))).toEqual(payload)
    const data = `${b64({ alg: 'ES256', kid: 'e1' })}.${b64(payload)}`
    const es256 = `${data}.${sign('sha256', Buffer.from(data), { key: ec.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`
    expect(await verifyIdTokenSignature(es256, keySet([rsaJwk, ecJwk]))).toEqual(payload)
  })

  it('refuses alg none, HMAC (the public key as a secret), a tampered payload and a kid it cannot find', async () => {
    const keys = keySet([rsaJwk])
    expect(await reasonOf(verifyIdTokenSignature(`${b64({ alg: 'none' })}.${b64(payload)}.`, keys))).toBe('signature')
    expect(await reasonOf(verifyIdTokenSignature(`${b64({ alg: 'HS256', kid: 'r1' })}.${b64(payload)}.abc`, keys))).toBe('signature')
    const [header, , signature] = rs256({ alg: 'RS256', kid: 'r1' }).split('.')
    expect(await reasonOf(verifyIdTokenSignature(`${header}.${b64({ sub: 'admin' })}.${signature}`, keys))).toBe('signature')
    expect(await reasonOf(verifyIdTokenSignature(rs256({ alg: 'RS256', kid: 'r1' }, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey), keys))).toBe('signature')
    expect(await reasonOf(verifyIdTokenSignature(rs256({ alg: 'RS256', kid: 'other' }), keys))).toBe('signature')
    expect(await reasonOf(verifyIdTokenSignature(rs256({ alg: 'RS256', kid: 'r1', crit: ['exp'] }), keys))).toBe('malformed')
    expect(await reasonOf(verifyIdTokenSignature('a.b', keys))).toBe('malformed')
  })

  it('fetches the key set again for a key id it does not know, at most every 30 s', async () => {
    const fetches = { count: 0 }
    let now = 0
    let published: unknown[] = [ecJwk]
    const keys = new KeySet('https://id.example/jwks', async () => {
      fetches.count += 1
      return { keys: published }
    }, () => now)
    now = 10_000
    expect(await reasonOf(verifyIdTokenSignature(rs256({ alg: 'RS256', kid: 'r1' }), keys))).toBe('signature')
    expect(fetches.count).toBe(1)
    published = [ecJwk, rsaJwk]
    expect(await reasonOf(verifyIdTokenSignature(rs256({ alg: 'RS256', kid: 'r1' }), keys))).toBe('signature')
    expect(fetches.count).toBe(1)
    now = 40_001
    expect(await verifyIdTokenSignature(rs256({ alg: 'RS256', kid: 'r1' }), keys)).toEqual(payload)
    expect(fetches.count).toBe(2)
  })
})
