// Issue #41 item 6: X-Forwarded-* is believed only from a trusted proxy (MIRRORBOARD_TRUST_PROXY=1; this server has none).
import { expect, it } from 'vitest'
import { send, target } from './support'

it('ignores X-Forwarded-Proto and X-Forwarded-Host from a client when no proxy is trusted', async () => {
  const spoofed = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', 'x-forwarded-for': '203.0.113.7' }
  const health = await send('/api/v1/health', { headers: spoofed, from: '127.0.0.81' })
  expect(health.headers['strict-transport-security']).toBeUndefined()
  const session = await send('/api/v1/session', { method: 'POST', body: JSON.stringify({ token: target.viewerToken }), headers: spoofed, from: '127.0.0.81' })
  expect(session.status).toBe(200)
  expect(session.headers['set-cookie']?.[0]).not.toMatch(/Secure|__Host-/)
  // A cookie-authenticated change whose Origin matches only the spoofed host is cross-origin.
  const cookie = session.headers['set-cookie']?.[0]?.split(';')[0] ?? ''
  const change = await send('/api/v1/clusters', {
    method: 'POST',
    body: JSON.stringify({ name: 'spoofed', kind: 'embedded', brokers: 1 }),
    headers: { ...spoofed, cookie, origin: 'http://evil.example' },
    from: '127.0.0.81',
  })
  expect(change.status).toBe(403)
})
