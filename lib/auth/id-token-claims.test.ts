import { describe, expect, it } from 'vitest'
import { groupsOf, isSignInRefused, SignInRefused } from './id-token-claims'

describe('groupsOf', () => {
  it('reads the groups claim as a list', () => {
    const claims = { iss: 'https://id.example', sub: 'u1', aud: 'mb', exp: 1, iat: 1, groups: ['a', 3, 'b'], team: 'one' }
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
