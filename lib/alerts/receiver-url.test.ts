import { describe, expect, it } from 'vitest'
import { checkReceiverUrl, redactUrl, redactUrlsIn } from './receiver-url'

describe('receiver URLs', () => {
  it('accept http and https only', () => {
    expect(checkReceiverUrl('https://hooks.example.com/x').ok).toBe(true)
    expect(checkReceiverUrl('http://127.0.0.1:9093').ok).toBe(true)
    expect(checkReceiverUrl('ftp://files.example.com/x')).toEqual({ ok: false, reason: 'must be http or https, not ftp' })
    expect(checkReceiverUrl('file:///etc/passwd')).toMatchObject({ ok: false })
    expect(checkReceiverUrl('javascript:alert(1)')).toMatchObject({ ok: false })
    expect(checkReceiverUrl('hooks.example.com/x')).toEqual({ ok: false, reason: 'is not an absolute URL' })
  })

  it('redact credentials, path tokens and query values, keeping where alerts go', () => {
    expect(redactUrl('https://user:pass@hooks.slack.com/services/T0AB12CD3/B0AB12CD3/abcdEFGHijklMNOPqrstUVWX')).toBe('https://***@hooks.slack.com/services/***/***/***')
    expect(redactUrl('http://127.0.0.1:9093')).toBe('http://127.0.0.1:9093/')
    expect(redactUrl('http://am.internal:9093/api/v2/alerts')).toBe('http://am.internal:9093/api/v2/alerts')
    expect(redactUrl('https://example.com/hook/8f14e45fceea167a5a36dedd4bea2543?token=s3cret&team=ops')).toBe('https://example.com/hook/***?token=***&team=***')
    expect(redactUrl('https://example.com/a#secret')).toBe('https://example.com/a')
    expect(redactUrl('not a url')).toBe('***')
  })

  it('redact every URL inside a text', () => {
    expect(redactUrlsIn('POST https://u:p@example.com/t0ken123456789 failed: 500')).toBe('POST https://***@example.com/*** failed: 500')
  })
})
