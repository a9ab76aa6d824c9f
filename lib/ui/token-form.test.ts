import { describe, expect, it } from 'vitest'
import { CreateApiTokenRequest } from '../api/tokens'
import { tokenRequestOf, tokenScopeText } from './token-form'

describe('the tokens form', () => {
  it('sends patterns split on spaces and new lines, keeping commas inside a pattern, and leaves empty fields out', () => {
    const request = tokenRequestOf({ name: ' ci-failover ', role: 'operator', mirrors: '.*-to-eu-west\n  orders-.{1,3}', clusters: '  ', expiresInDays: '30' })
    expect(request).toEqual({ name: 'ci-failover', role: 'operator', mirrors: ['.*-to-eu-west', 'orders-.{1,3}'], expiresInDays: 30 })
    expect(CreateApiTokenRequest.safeParse(request).success).toBe(true)
    expect(tokenRequestOf({ name: 'x', role: 'viewer', mirrors: '', clusters: '', expiresInDays: '' })).toEqual({ name: 'x', role: 'viewer' })
  })

  it('sends a non-number expiry as typed, so the API refuses it by name', () => {
    const parsed = CreateApiTokenRequest.safeParse(tokenRequestOf({ name: 'x', role: 'viewer', mirrors: '', clusters: '', expiresInDays: 'soon' }))
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]?.path).toEqual(['expiresInDays'])
  })

  it('says where a token holds', () => {
    expect(tokenScopeText({ role: 'admin' })).toBe('admin everywhere')
    expect(tokenScopeText({ role: 'operator', mirrors: ['.*-to-eu-west'], clusters: ['eu-.*'] })).toBe('operator on clusters matching eu-.* and mirrors matching .*-to-eu-west')
  })
})
