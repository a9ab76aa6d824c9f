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
    expect(config).toEqual({ bootstrap: ['k1:9092', 'k2:9092'], instanceId: 'dc1-a', secretKey: 'a-long-enough-secret', group: 'mb', sessionTimeoutMs: 6000 })
    expect(readHaConfig(base)?.instanceId).toMatch(/-\d+$/)
  })

  it('refuses a missing secret key, a bad address, instance id or session timeout with a clear message', () => {
    expect(() => readHaConfig({ MIRRORBOARD_CONTROL_BOOTSTRAP: 'k1:9092' })).toThrow(/MIRRORBOARD_SECRET_KEY must be set/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_CONTROL_BOOTSTRAP: 'k1' })).toThrow(/not host:port/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_INSTANCE_ID: 'a b' })).toThrow(/MIRRORBOARD_INSTANCE_ID/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_SESSION_TIMEOUT_MS: '10' })).toThrow(/MIRRORBOARD_SESSION_TIMEOUT_MS/)
  })
})
