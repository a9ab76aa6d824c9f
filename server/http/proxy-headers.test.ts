import { describe, expect, it } from 'vitest'
import { applyProxyTrust } from './proxy-headers'

describe('applyProxyTrust (issue #41 item 6: X-Forwarded-* only from a trusted proxy)', () => {
  const sent = () => ({ host: 'mb.example', 'x-forwarded-for': '203.0.113.9, 198.51.100.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'other.example', forwarded: 'for=1.2.3.4' })

  it('removes every proxy header and keeps the socket address when no proxy is trusted', () => {
    const headers = sent()
    expect(applyProxyTrust(headers, '127.0.0.1', false)).toBe('127.0.0.1')
    expect(headers).toEqual({ host: 'mb.example' })
  })

  it('keeps them behind a trusted proxy, the client being the address it appended', () => {
    const headers = sent()
    expect(applyProxyTrust(headers, '10.0.0.2', true)).toBe('198.51.100.7')
    expect(headers['x-forwarded-proto']).toBe('https')
    expect(applyProxyTrust({ host: 'x' }, '10.0.0.2', true)).toBe('10.0.0.2')
  })
})
