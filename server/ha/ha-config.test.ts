import { describe, expect, it } from 'vitest'
import { readHaConfig } from './ha-config'

const base = { MIRRORBOARD_CONTROL_BOOTSTRAP: 'k1:9092, k2:9092', MIRRORBOARD_SECRET_KEY: 'a-long-enough-secret' }

describe('readHaConfig', () => {
  it('is off without MIRRORBOARD_CONTROL_BOOTSTRAP: one instance, as always', () => {
    expect(readHaConfig({})).toBeNull()
    expect(readHaConfig({ MIRRORBOARD_SECRET_KEY: 'whatever-whatever' })).toBeNull()
  })

  it('reads the control cluster, the instance and the group', () => {
    const config = readHaConfig({ ...base, MIRRORBOARD_INSTANCE_ID: 'dc1-a', MIRRORBOARD_CONTROL_GROUP: 'mb', MIRRORBOARD_SESSION_TIMEOUT_MS: '6000' })
    expect(config).toEqual({ bootstrap: ['k1:9092', 'k2:9092'], instanceId: 'dc1-a', secretKey: 'a-long-enough-secret', group: 'mb', sessionTimeoutMs: 6000, advertisedUrl: 'http://127.0.0.1:3000' })
    expect(readHaConfig(base)?.instanceId).toMatch(/-\d+$/)
  })

  it('advertises where the others reach this instance: MIRRORBOARD_ADVERTISED_URL, else MIRRORBOARD_URL, else HOST and PORT', () => {
    expect(readHaConfig({ ...base, MIRRORBOARD_ADVERTISED_URL: 'https://mb-1.internal:8443/', MIRRORBOARD_URL: 'https://mirrorboard.example' })?.advertisedUrl).toBe('https://mb-1.internal:8443')
    expect(readHaConfig({ ...base, MIRRORBOARD_URL: 'https://mirrorboard.example' })?.advertisedUrl).toBe('https://mirrorboard.example')
    expect(readHaConfig({ ...base, HOST: '10.0.0.7', PORT: '4000' })?.advertisedUrl).toBe('http://10.0.0.7:4000')
    expect(readHaConfig({ ...base, HOST: '0.0.0.0' })?.advertisedUrl).not.toContain('0.0.0.0')
    expect(() => readHaConfig({ ...base, MIRRORBOARD_ADVERTISED_URL: 'ftp://x' })).toThrow(/MIRRORBOARD_ADVERTISED_URL/)
  })

  it('refuses a missing secret key, a bad address, instance id or session timeout with a clear message', () => {
    expect(() => readHaConfig({ MIRRORBOARD_CONTROL_BOOTSTRAP: 'k1:9092' })).toThrow(/MIRRORBOARD_SECRET_KEY must be set/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_CONTROL_BOOTSTRAP: 'k1' })).toThrow(/not host:port/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_INSTANCE_ID: 'a b' })).toThrow(/MIRRORBOARD_INSTANCE_ID/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_SESSION_TIMEOUT_MS: '10' })).toThrow(/MIRRORBOARD_SESSION_TIMEOUT_MS/)
  })
})
