import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readHaConfig } from './ha-config'

const base = { MIRRORBOARD_CONTROL_BOOTSTRAP: 'k1:9093', MIRRORBOARD_SECRET_KEY: 'a-long-enough-secret' }
const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-control-connection-'))
const file = (name: string, text: string) => {
  const at = path.join(dir, name)
  writeFileSync(at, text)
  return at
}
const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n')
const cert = file('cert.pem', '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n')
const key = file('key.pem', '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n')
const password = file('password', 'from-a-file\n')

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the control cluster connection (MIRRORBOARD_CONTROL_SASL_*, MIRRORBOARD_CONTROL_SSL_*)', () => {
  it('is plaintext when nothing is set', () => {
    expect(readHaConfig(base)?.connection).toBeUndefined()
  })

  it('maps SASL and TLS to the same options as a cluster connection', () => {
    const config = readHaConfig({
      ...base,
      MIRRORBOARD_CONTROL_SASL_MECHANISM: 'SCRAM-SHA-512',
      MIRRORBOARD_CONTROL_SASL_USERNAME: 'mirrorboard',
      MIRRORBOARD_CONTROL_SASL_PASSWORD_FILE: password,
      MIRRORBOARD_CONTROL_SSL: '1',
      MIRRORBOARD_CONTROL_SSL_CA_FILE: ca,
      MIRRORBOARD_CONTROL_SSL_CERT_FILE: cert,
      MIRRORBOARD_CONTROL_SSL_KEY_FILE: key,
      MIRRORBOARD_CONTROL_SSL_REJECT_UNAUTHORIZED: '1',
    })
    expect(config?.connection).toEqual({
      sasl: { mechanism: 'scram-sha-512', username: 'mirrorboard', password: 'from-a-file' },
      ssl: { ca: expect.stringContaining('ca'), cert: expect.stringContaining('client'), key: expect.stringContaining('PRIVATE KEY'), rejectUnauthorized: true },
    })
    expect(readHaConfig({ ...base, MIRRORBOARD_CONTROL_SSL: '1' })?.connection).toEqual({ ssl: true })
    expect(readHaConfig({ ...base, MIRRORBOARD_CONTROL_SASL_MECHANISM: 'plain', MIRRORBOARD_CONTROL_SASL_USERNAME: 'u', MIRRORBOARD_CONTROL_SASL_PASSWORD: 'p' })?.connection).toEqual({
      sasl: { mechanism: 'plain', username: 'u', password: 'p' },
    })
  })

  it('refuses combinations that cannot work, naming the variable to fix', () => {
    const sasl = { MIRRORBOARD_CONTROL_SASL_MECHANISM: 'plain', MIRRORBOARD_CONTROL_SASL_USERNAME: 'u', MIRRORBOARD_CONTROL_SASL_PASSWORD: 'p' }
    expect(() => readHaConfig({ ...base, MIRRORBOARD_CONTROL_SASL_USERNAME: 'u', MIRRORBOARD_CONTROL_SASL_PASSWORD: 'p' })).toThrow(/MIRRORBOARD_CONTROL_SASL_MECHANISM must be set/)
    expect(() => readHaConfig({ ...base, ...sasl, MIRRORBOARD_CONTROL_SASL_MECHANISM: 'gssapi' })).toThrow('MIRRORBOARD_CONTROL_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512, not "gssapi"')
    expect(() => readHaConfig({ ...base, ...sasl, MIRRORBOARD_CONTROL_SASL_USERNAME: '' })).toThrow(/MIRRORBOARD_CONTROL_SASL_USERNAME must be set/)
    expect(() => readHaConfig({ ...base, ...sasl, MIRRORBOARD_CONTROL_SASL_PASSWORD: undefined })).toThrow(/MIRRORBOARD_CONTROL_SASL_PASSWORD \(or MIRRORBOARD_CONTROL_SASL_PASSWORD_FILE\) must be set/)
    expect(() => readHaConfig({ ...base, ...sasl, MIRRORBOARD_CONTROL_SASL_PASSWORD_FILE: password })).toThrow(/one of MIRRORBOARD_CONTROL_SASL_PASSWORD and MIRRORBOARD_CONTROL_SASL_PASSWORD_FILE/)
    expect(() => readHaConfig({ ...base, ...sasl, MIRRORBOARD_CONTROL_SASL_PASSWORD: 'x'.repeat(1025) })).toThrow(/MIRRORBOARD_CONTROL_SASL_PASSWORD: .*sasl\.password/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_CONTROL_SSL_CA_FILE: ca })).toThrow('MIRRORBOARD_CONTROL_SSL_CA_FILE is set but MIRRORBOARD_CONTROL_SSL is not 1')
    expect(() => readHaConfig({ ...base, MIRRORBOARD_CONTROL_SSL: 'yes' })).toThrow('MIRRORBOARD_CONTROL_SSL must be 1 or 0, not "yes"')
    expect(() => readHaConfig({ ...base, MIRRORBOARD_CONTROL_SSL: '1', MIRRORBOARD_CONTROL_SSL_CERT_FILE: cert })).toThrow(/CERT_FILE and MIRRORBOARD_CONTROL_SSL_KEY_FILE go together/)
    expect(() => readHaConfig({ ...base, MIRRORBOARD_CONTROL_SSL: '1', MIRRORBOARD_CONTROL_SSL_CA_FILE: path.join(dir, 'missing.pem') })).toThrow(/MIRRORBOARD_CONTROL_SSL_CA_FILE: .*missing\.pem cannot be read \(ENOENT\)/)
  })
})
