import { describe, expect, it } from 'vitest'
import { forwardingKey, signForwardedCaller, verifyForwardedCaller } from './forwarded-caller'

const key = forwardingKey('the-group-secret-key')
const caller = { principal: { actor: 'user:alice@example.com', role: 'operator' }, from: 'mb-2', method: 'POST', path: '/api/v1/mirrors/orders/topics/pause' }
const request = { method: 'POST', path: '/api/v1/mirrors/orders/topics/pause' }

describe('the caller one instance vouches for to another', () => {
  it('verifies under the group’s key for the request it was signed for, until it expires', () => {
    const header = signForwardedCaller(key, caller, 1_000)
    expect(verifyForwardedCaller(key, header, request, 1_000)).toEqual({ ...caller, expiresAt: 61_000 })
    expect(verifyForwardedCaller(key, header, request, 61_001)).toEqual({ refused: expect.stringContaining('expired') })
  })

  it('refuses another key, an altered caller, another request and garbage', () => {
    const header = signForwardedCaller(key, caller, 1_000)
    expect(verifyForwardedCaller(forwardingKey('another-secret-key'), header, request, 1_000)).toEqual({ refused: expect.stringContaining('MIRRORBOARD_SECRET_KEY') })
    const [payload, signature] = header.split('.')
    const altered = Buffer.from(JSON.stringify({ ...caller, principal: { actor: 'token:operator', role: 'operator' }, expiresAt: 61_000 })).toString('base64url')
    expect(verifyForwardedCaller(key, `${altered}.${signature}`, request, 1_000)).toHaveProperty('refused')
    expect(verifyForwardedCaller(key, header, { ...request, path: '/api/v1/mirrors/orders' }, 1_000)).toEqual({ refused: expect.stringContaining('another request') })
    expect(verifyForwardedCaller(key, header, { ...request, method: 'DELETE' }, 1_000)).toHaveProperty('refused')
    for (const bad of ['', 'x', `${payload}`, `${payload}.${signature}.x`, 'a.b']) expect(verifyForwardedCaller(key, bad, request, 1_000)).toHaveProperty('refused')
  })
})

describe('the query the caller was signed for', () => {
  it('matches the same query re-encoded by the receiving server, not another one', () => {
    const listing = { ...caller, method: 'GET', path: '/api/v1/events?types=partition,lag' }
    const header = signForwardedCaller(key, listing, 1_000)
    expect(verifyForwardedCaller(key, header, { method: 'GET', path: '/api/v1/events?types=partition%2Clag' }, 1_000)).toHaveProperty('from', 'mb-2')
    expect(verifyForwardedCaller(key, header, { method: 'GET', path: '/api/v1/events?types=partition%2Clag%2Caudit' }, 1_000)).toEqual({ refused: expect.stringContaining('another request') })
  })
})
