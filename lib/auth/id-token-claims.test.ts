import { describe, expect, it } from 'vitest'
import { checkIdTokenClaims, groupsOf, isSignInRefused, SignInRefused } from './id-token-claims'

const expected = { issuer: 'https://id.example', clientId: 'mb', nonce: 'n1', now: 1_000_000_000 }
const good = { iss: 'https://id.example', sub: 'u1', aud: 'mb', exp: 1_000_300, iat: 1_000_000, nonce: 'n1' }

function reasonOf(claims: unknown): string {
  try {
    checkIdTokenClaims(claims, expected)
    return 'accepted'
  } catch (error) {
    if (error instanceof SignInRefused) return error.reason
    throw error
  }
}

describe('checkIdTokenClaims', () => {
  it('accepts a token for us from our provider, within its time, for this sign-in', () => {
    expect(reasonOf(good)).toBe('accepted')
    expect(reasonOf({ ...good, aud: ['mb', 'other'], azp: 'mb' })).toBe('accepted')
    expect(reasonOf({ ...good, exp: 1_000_000 - 30 })).toBe('accepted')
  })

  it('refuses every claim that is off', () => {
    expect(reasonOf({ ...good, iss: 'https://id.example/' })).toBe('issuer')
    expect(reasonOf({ ...good, aud: 'other' })).toBe('audience')
    expect(reasonOf({ ...good, aud: ['mb', 'other'] })).toBe('audience')
    expect(reasonOf({ ...good, azp: 'other' })).toBe('audience')
    expect(reasonOf({ ...good, exp: 1_000_000 - 61 })).toBe('expired')
    expect(reasonOf({ ...good, iat: 1_000_061 })).toBe('not-yet-valid')
    expect(reasonOf({ ...good, nbf: 1_000_100 })).toBe('not-yet-valid')
    expect(reasonOf({ ...good, nonce: 'n2' })).toBe('nonce')
    expect(reasonOf({ ...good, nonce: undefined })).toBe('nonce')
    expect(reasonOf({ ...good, sub: '' })).toBe('malformed')
    expect(reasonOf({ ...good, exp: '1000300' })).toBe('malformed')
    expect(reasonOf([])).toBe('malformed')
  })

  it('reads the groups claim as a list', () => {
    const claims = checkIdTokenClaims({ ...good, groups: ['a', 3, 'b'], team: 'one' }, expected)
    expect(groupsOf(claims, 'groups')).toEqual(['a', 'b'])
    expect(groupsOf(claims, 'team')).toEqual(['one'])
    expect(groupsOf(claims, 'missing')).toEqual([])
  })
})

describe('isSignInRefused', () => {
  it('knows a refusal by its name and reason, whichever copy of the class threw it', () => {
    expect(isSignInRefused(new SignInRefused('state', 'x'))).toBe(true)
    const copy = Object.assign(new Error('x'), { name: 'SignInRefused', reason: 'nonce' })
    expect(isSignInRefused(copy)).toBe(true)
    expect(isSignInRefused(new Error('x'))).toBe(false)
    expect(isSignInRefused({ name: 'SignInRefused', reason: 'state' })).toBe(false)
  })
})
