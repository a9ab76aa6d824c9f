import { describe, expect, it } from 'vitest'
import { readRuntimeConfig } from './config'

const env = (more: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: 'test', ...more })

describe('readRuntimeConfig', () => {
  it('keeps the clusters per-partition gauges in /api/metrics unless MIRRORBOARD_METRICS_CLUSTER_PARTITIONS=0', () => {
    expect(readRuntimeConfig(env({})).metricsClusterPartitions).toBe(true)
    expect(readRuntimeConfig(env({ MIRRORBOARD_METRICS_CLUSTER_PARTITIONS: '1' })).metricsClusterPartitions).toBe(true)
    expect(readRuntimeConfig(env({ MIRRORBOARD_METRICS_CLUSTER_PARTITIONS: ' 0 ' })).metricsClusterPartitions).toBe(false)
    expect(() => readRuntimeConfig(env({ MIRRORBOARD_METRICS_CLUSTER_PARTITIONS: 'false' }))).toThrow('MIRRORBOARD_METRICS_CLUSTER_PARTITIONS must be 1 or 0, not "false"')
  })
})

describe('readRuntimeConfig: identity provider', () => {
  const oidc = { MIRRORBOARD_OIDC_ISSUER: 'https://id.example.com/realms/main/', MIRRORBOARD_OIDC_CLIENT_ID: 'mirrorboard', MIRRORBOARD_PUBLIC_URL: 'https://mb.example.com', MIRRORBOARD_ROLES_FILE: 'roles.yaml' }

  it('is off without an issuer, and reads the rest with defaults when it is set', () => {
    expect(readRuntimeConfig(env({})).oidc).toBeNull()
    const config = readRuntimeConfig(env(oidc))
    expect(config.oidc).toEqual({
      issuer: 'https://id.example.com/realms/main',
      clientId: 'mirrorboard',
      clientSecret: null,
      publicUrl: 'https://mb.example.com',
      scopes: ['openid', 'profile', 'email'],
      groupsClaim: 'groups',
      providerName: 'id.example.com',
    })
    expect(config.rolesFile).toMatch(/\/roles\.yaml$/)
    expect(config.tokenSignIn).toBe(true)
    expect(config.sessionIdleMs).toBe(3_600_000)
    expect(readRuntimeConfig(env({ ...oidc, MIRRORBOARD_OIDC_CLIENT_SECRET_FILE: '/run/secrets/oidc' })).oidc?.clientSecret).toEqual({ file: '/run/secrets/oidc' })
  })

  it('stops the start on a half-done set-up, naming what is missing', () => {
    expect(() => readRuntimeConfig(env({ MIRRORBOARD_OIDC_CLIENT_ID: 'x' }))).toThrow('MIRRORBOARD_OIDC_CLIENT_ID is set but MIRRORBOARD_OIDC_ISSUER is not')
    expect(() => readRuntimeConfig(env({ ...oidc, MIRRORBOARD_OIDC_CLIENT_ID: '' }))).toThrow('MIRRORBOARD_OIDC_CLIENT_ID must be set')
    expect(() => readRuntimeConfig(env({ ...oidc, MIRRORBOARD_PUBLIC_URL: '' }))).toThrow('MIRRORBOARD_PUBLIC_URL must be set')
    expect(() => readRuntimeConfig(env({ ...oidc, MIRRORBOARD_ROLES_FILE: '' }))).toThrow('MIRRORBOARD_ROLES_FILE must be set')
    expect(() => readRuntimeConfig(env({ ...oidc, MIRRORBOARD_OIDC_ISSUER: 'http://id.example.com' }))).toThrow('must be an https URL')
    expect(readRuntimeConfig(env({ ...oidc, MIRRORBOARD_OIDC_ISSUER: 'http://127.0.0.1:4301' })).oidc?.issuer).toBe('http://127.0.0.1:4301')
    expect(() => readRuntimeConfig(env({ ...oidc, MIRRORBOARD_OIDC_CLIENT_SECRET: 's', MIRRORBOARD_OIDC_CLIENT_SECRET_FILE: 'f' }))).toThrow('not both')
    expect(() => readRuntimeConfig(env({ ...oidc, MIRRORBOARD_TOKEN_SIGN_IN: 'no' }))).toThrow('MIRRORBOARD_TOKEN_SIGN_IN must be 1 or 0')
  })
})
