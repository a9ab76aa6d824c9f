import { describe, expect, it } from 'vitest'
import { requesterName } from './requester-name'

describe('requesterName', () => {
  it("names the person, the token, or the token a browser signed in with — never a session's id", () => {
    expect(requesterName({ actor: 'user:alice@example.com', actorName: 'Alice Example <alice@example.com>', role: 'operator' })).toBe('Alice Example <alice@example.com>')
    expect(requesterName({ actor: 'user:alice@example.com', role: 'operator' })).toBe('alice@example.com')
    expect(requesterName({ actor: 'token:ci-failover', role: 'operator' })).toBe('the ci-failover token')
    expect(requesterName({ actor: 'token:operator', role: 'operator' })).toBe('the operator token')
    const session = requesterName({ actor: 'session:cf7fdd17', role: 'operator' })
    expect(session).toBe('someone signed in with the operator token')
    expect(session).not.toContain('cf7fdd17')
    expect(requesterName(null)).toBe('an unrecorded caller')
  })
})
