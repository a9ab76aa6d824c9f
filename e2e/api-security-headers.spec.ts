import { expect, test, type APIResponse } from '@playwright/test'
import { asViewer, viewerToken } from './support/http'

/**
 * The security headers of every answer (server/http/security-headers.ts, set by server/main.ts): a page, an
 * API answer, error answers (ours, Next's and main.ts's own) and the event stream. Over plain HTTP there is
 * no Strict-Transport-Security; behind a TLS proxy (X-Forwarded-Proto: https) there is, and the session
 * cookie is Secure.
 */

function expectSecurityHeaders(response: APIResponse, what: string): string {
  const headers = response.headers()
  const policy = headers['content-security-policy'] ?? ''
  expect(policy, `${what}: Content-Security-Policy`).toMatch(/(^|; )default-src 'self'(;|$)/)
  expect(policy, what).toMatch(/(^|; )script-src 'self' 'nonce-[A-Za-z0-9+/]{22}==' *(;|$)/)
  expect(policy, what).toContain("frame-ancestors 'none'")
  expect(policy, what).toContain("object-src 'none'")
  expect(policy, what).not.toMatch(/script-src[^;]*'unsafe-inline'/)
  expect(headers['x-content-type-options'], what).toBe('nosniff')
  expect(headers['referrer-policy'], what).toBe('no-referrer')
  expect(headers['strict-transport-security'], `${what}: no HSTS over plain HTTP`).toBeUndefined()
  return /'nonce-([^']+)'/.exec(policy)?.[1] ?? ''
}

test('a page carries the headers, and its inline scripts carry the nonce of its policy', async ({ request }) => {
  const response = await request.get('/login', { headers: { 'Content-Security-Policy': "script-src 'nonce-chosenbyclient'" } })
  expect(response.status()).toBe(200)
  const nonce = expectSecurityHeaders(response, 'GET /login')
  const html = await response.text()
  const inlineScripts = [...html.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>/g)].map((match) => match[1] ?? '')
  expect(inlineScripts.length).toBeGreaterThan(0)
  for (const attributes of inlineScripts) expect(attributes).toContain(`nonce="${nonce}"`)
  expect(html).not.toContain('chosenbyclient')
  const again = expectSecurityHeaders(await request.get('/login'), 'GET /login again')
  expect(again, 'a fresh nonce per answer').not.toBe(nonce)
})

test('an API answer and error answers carry the headers', async ({ request }) => {
  expectSecurityHeaders(await request.get('/api/v1/health'), 'GET /api/v1/health')
  const unauthenticated = await request.get('/api/v1/clusters')
  expect(unauthenticated.status()).toBe(401)
  expectSecurityHeaders(unauthenticated, '401 from a route')
  const notFound = await request.get('/api/v1/clusters/no-such-cluster', { headers: asViewer })
  expect(notFound.status()).toBe(404)
  expectSecurityHeaders(notFound, '404 from a route')
  const unknownPage = await request.get('/no-such-page')
  expect(unknownPage.status()).toBe(404)
  expectSecurityHeaders(unknownPage, "Next's not-found page")
  const trace = await request.fetch('/api/v1/health', { method: 'TRACE' })
  expect(trace.status()).toBe(405)
  expectSecurityHeaders(trace, 'TRACE answered by server/main.ts')
})

test('the event stream carries the headers', async ({ baseURL }) => {
  const controller = new AbortController()
  try {
    const response = await fetch(`${baseURL}/api/v1/events`, { headers: { Authorization: `Bearer ${viewerToken}`, Accept: 'text/event-stream' }, signal: controller.signal })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).toMatch(/script-src 'self' 'nonce-/)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
  } finally {
    controller.abort()
  }
})

test('behind a TLS proxy the answers carry HSTS and the session cookie is Secure', async ({ request }) => {
  const overTls = { 'X-Forwarded-Proto': 'https' }
  const health = await request.get('/api/v1/health', { headers: overTls })
  expect(health.headers()['strict-transport-security']).toBe('max-age=31536000')
  const session = await request.post('/api/v1/session', { headers: overTls, data: { token: viewerToken } })
  expect(session.status()).toBe(200)
  expect(session.headers()['set-cookie']).toMatch(/^__Host-mirrorboard_session=.*; Secure(;|$)/)
  expect(session.headers()['strict-transport-security']).toBe('max-age=31536000')
  const plain = await request.post('/api/v1/session', { data: { token: viewerToken } })
  expect(plain.headers()['set-cookie']).not.toMatch(/Secure/)
})
