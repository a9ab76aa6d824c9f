import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy, isTlsRequest, newNonce, securityHeaders, staticSecurityHeaders } from './security-headers'

describe('security headers', () => {
  it('allow scripts only from our origin or with the nonce, and no framing', () => {
    const policy = contentSecurityPolicy('abc123==')
    const directives = new Map(policy.split('; ').map((directive) => [directive.split(' ')[0], directive]))
    expect(directives.get('default-src')).toBe("default-src 'self'")
    expect(directives.get('script-src')).toBe("script-src 'self' 'nonce-abc123=='")
    expect(directives.get('frame-ancestors')).toBe("frame-ancestors 'none'")
    expect(directives.get('object-src')).toBe("object-src 'none'")
    expect(policy).not.toContain('unsafe-eval')
    expect(policy).not.toMatch(/https?:|\*/)
  })

  it('make a fresh 128-bit nonce each time', () => {
    const nonces = new Set(Array.from({ length: 100 }, () => newNonce()))
    expect(nonces.size).toBe(100)
    for (const nonce of nonces) expect(Buffer.from(nonce, 'base64')).toHaveLength(16)
  })

  it('count a TLS socket or a proxy saying https as TLS, and only then send HSTS', () => {
    expect(isTlsRequest(undefined, true)).toBe(true)
    expect(isTlsRequest('https', false)).toBe(true)
    expect(isTlsRequest('https, http', false)).toBe(true)
    expect(isTlsRequest(['https'], false)).toBe(true)
    expect(isTlsRequest('http', false)).toBe(false)
    expect(isTlsRequest('http, https', false)).toBe(false)
    expect(isTlsRequest(undefined, false)).toBe(false)
    expect(securityHeaders('n', true)['Strict-Transport-Security']).toBe('max-age=31536000')
    expect(securityHeaders('n', false)).toEqual({
      'Content-Security-Policy': contentSecurityPolicy('n'),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    })
  })

  it('are set by next.config.ts too, so `next start` alone never serves without them (issue #41 item 6)', async () => {
    const { default: config } = await import('@/next.config')
    const rules = (await config.headers?.()) ?? []
    expect(rules).toEqual([{ source: '/:path*', headers: staticSecurityHeaders() }])
    const policy = staticSecurityHeaders().find((header) => header.key === 'Content-Security-Policy')?.value ?? ''
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).toContain("object-src 'none'")
    expect(staticSecurityHeaders().map((header) => header.key)).toEqual(['Content-Security-Policy', 'X-Content-Type-Options', 'Referrer-Policy'])
  })
})
