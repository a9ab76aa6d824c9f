import 'server-only'
import path from 'node:path'
import { DEFAULT_AUDIT_RETENTION, type AuditRetention } from './audit/audit-files'
import { HostAllowlist } from './cluster/kafka/allowed-hosts'
import { readHaConfig, type HaConfig } from './ha/ha-config'

export interface RuntimeConfig {
  /** Where embedded clusters, mirror state, tokens and the audit log live. */
  dataDir: string
  /** True when started by `npm run demo` or with MIRRORBOARD_DEMO=1. */
  demo: boolean
  /** Where the app is served, for the demo's startup banner: MIRRORBOARD_URL, else from HOST and PORT. */
  url: string
  /** MIRRORBOARD_METRICS_PUBLIC=1 lets anyone scrape /api/metrics; otherwise it needs a viewer. */
  metricsPublic: boolean
  /**
   * MIRRORBOARD_METRICS_CLUSTER_PARTITIONS=0 leaves the embedded clusters' per-partition gauges
   * (`mirrorboard_partition_log_end_offset` and friends) out of /api/metrics; on by default.
   */
  metricsClusterPartitions: boolean
  /**
   * Check every response body against its schema before sending it (a mismatch is a 500). On outside
   * production builds and when MIRRORBOARD_CHECK_RESPONSES=1 (the test suites); off in production, where
   * the types derived from the same schemas are trusted and a 10,000-partition list would pay ~20 ms a call.
   */
  checkResponses: boolean
  /** Tokens given in the environment; the ones left out are generated and kept in `<dataDir>/tokens.json`. */
  tokens: { operator: string | undefined; viewer: string | undefined }
  /**
   * When the audit file rotates and what is kept: MIRRORBOARD_AUDIT_ROTATE_MB (64), MIRRORBOARD_AUDIT_RETAIN_MB
   * (1024, all audit files together) and MIRRORBOARD_AUDIT_RETAIN_DAYS (365).
   */
  auditRetention: AuditRetention
  /** MIRRORBOARD_KAFKA_ALLOWED_HOSTS: the only hosts Kafka clusters may be reached at; null: any. */
  kafkaAllowedHosts: HostAllowlist | null
  /** Sign-in through the company's identity provider (docs/security.md); null when MIRRORBOARD_OIDC_ISSUER is unset. */
  oidc: OidcConfig | null
  /** MIRRORBOARD_ROLES_FILE: the YAML file mapping groups, subjects and e-mail addresses to scoped roles. */
  rolesFile: string | undefined
  /**
   * MIRRORBOARD_TOKEN_SIGN_IN=0: the sign-in page no longer takes the shared tokens, so people sign in through
   * the identity provider; the tokens keep working as bearer tokens for machines (API, CLI, scripts).
   */
  tokenSignIn: boolean
  /** MIRRORBOARD_SESSION_IDLE_MINUTES (60): a provider session unused this long ends. */
  sessionIdleMs: number
  /** Several instances sharing the work through a control Kafka cluster (server/ha/); null: one instance, as always. */
  ha?: HaConfig | null
}

export interface OidcConfig {
  issuer: string
  clientId: string
  /** MIRRORBOARD_OIDC_CLIENT_SECRET, or the file MIRRORBOARD_OIDC_CLIENT_SECRET_FILE names (read at start). */
  clientSecret: { value: string } | { file: string } | null
  /** MIRRORBOARD_PUBLIC_URL: where browsers reach Mirrorboard; the provider sends them back below it. */
  publicUrl: string
  /** MIRRORBOARD_OIDC_SCOPES, default "openid profile email". */
  scopes: string[]
  /** MIRRORBOARD_OIDC_GROUPS_CLAIM, default "groups". */
  groupsClaim: string
  /** MIRRORBOARD_OIDC_PROVIDER_NAME: "Sign in with <name>"; default the issuer's host. */
  providerName: string
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}

const MIB = 1024 * 1024
const DAY_MS = 24 * 60 * 60 * 1000

/** A positive number from the environment, else the default; anything else stops the start with its name. */
function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim()
  if (!text) return fallback
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(text)}`)
  return value
}

/** 1 or 0 from the environment, else the default; anything else stops the start with its name. */
function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = env[name]?.trim()
  if (!text) return fallback
  if (text !== '0' && text !== '1') throw new Error(`${name} must be 1 or 0, not ${JSON.stringify(text)}`)
  return text === '1'
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** An https URL (plain http only on this machine: a test provider); anything else stops the start with its name. */
function webUrl(env: NodeJS.ProcessEnv, name: string): string {
  const text = env[name]?.trim() ?? ''
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error(`${name} must be a URL such as https://id.example.com/realms/main, not ${JSON.stringify(text)}`)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw new Error(`${name} must be an https URL (plain http only on 127.0.0.1 or localhost), not ${JSON.stringify(text)}`)
  }
  if (url.search !== '' || url.hash !== '') throw new Error(`${name} must have no query or fragment, not ${JSON.stringify(text)}`)
  return text.replace(/\/+$/, '')
}

const OIDC_NAMES = ['MIRRORBOARD_OIDC_CLIENT_ID', 'MIRRORBOARD_OIDC_CLIENT_SECRET', 'MIRRORBOARD_OIDC_CLIENT_SECRET_FILE', 'MIRRORBOARD_OIDC_SCOPES', 'MIRRORBOARD_OIDC_GROUPS_CLAIM', 'MIRRORBOARD_OIDC_PROVIDER_NAME']

function readOidcConfig(env: NodeJS.ProcessEnv): OidcConfig | null {
  if (nonEmpty(env.MIRRORBOARD_OIDC_ISSUER) === undefined) {
    const stray = OIDC_NAMES.find((name) => nonEmpty(env[name]) !== undefined)
    if (stray !== undefined) throw new Error(`${stray} is set but MIRRORBOARD_OIDC_ISSUER is not: set the issuer to sign in through an identity provider`)
    return null
  }
  const issuer = webUrl(env, 'MIRRORBOARD_OIDC_ISSUER')
  const clientId = nonEmpty(env.MIRRORBOARD_OIDC_CLIENT_ID)
  if (clientId === undefined) throw new Error('MIRRORBOARD_OIDC_CLIENT_ID must be set with MIRRORBOARD_OIDC_ISSUER (the client registered at the provider)')
  if (nonEmpty(env.MIRRORBOARD_PUBLIC_URL) === undefined) {
    throw new Error('MIRRORBOARD_PUBLIC_URL must be set with MIRRORBOARD_OIDC_ISSUER (where browsers reach Mirrorboard, e.g. https://mirrorboard.example.com)')
  }
  const secret = nonEmpty(env.MIRRORBOARD_OIDC_CLIENT_SECRET)
  const secretFile = nonEmpty(env.MIRRORBOARD_OIDC_CLIENT_SECRET_FILE)
  if (secret !== undefined && secretFile !== undefined) throw new Error('set one of MIRRORBOARD_OIDC_CLIENT_SECRET and MIRRORBOARD_OIDC_CLIENT_SECRET_FILE, not both')
  const scopes = (nonEmpty(env.MIRRORBOARD_OIDC_SCOPES) ?? 'openid profile email').split(/[\s,]+/).filter(Boolean)
  return {
    issuer,
    clientId,
    clientSecret: secret !== undefined ? { value: secret } : secretFile !== undefined ? { file: path.resolve(/*turbopackIgnore: true*/ secretFile) } : null,
    publicUrl: webUrl(env, 'MIRRORBOARD_PUBLIC_URL'),
    scopes,
    groupsClaim: nonEmpty(env.MIRRORBOARD_OIDC_GROUPS_CLAIM) ?? 'groups',
    providerName: nonEmpty(env.MIRRORBOARD_OIDC_PROVIDER_NAME) ?? new URL(issuer).host,
  }
}

/** Reads the process environment once, at the composition root; nothing else reads env flags. */
export function readRuntimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  return {
    // The data dir is chosen at run time; tracing it at build time would pull the whole project into the output.
    dataDir: path.resolve(/*turbopackIgnore: true*/ env.MIRRORBOARD_DATA_DIR?.trim() || './data'),
    demo: env.MIRRORBOARD_DEMO === '1',
    url: env.MIRRORBOARD_URL?.trim() || `http://${env.HOST?.trim() || '127.0.0.1'}:${env.PORT?.trim() || '3000'}`,
    metricsPublic: env.MIRRORBOARD_METRICS_PUBLIC === '1',
    metricsClusterPartitions: flag(env, 'MIRRORBOARD_METRICS_CLUSTER_PARTITIONS', true),
    checkResponses: env.MIRRORBOARD_CHECK_RESPONSES === '1' || env.NODE_ENV !== 'production',
    tokens: { operator: nonEmpty(env.MIRRORBOARD_OPERATOR_TOKEN), viewer: nonEmpty(env.MIRRORBOARD_VIEWER_TOKEN) },
    auditRetention: {
      rotateBytes: Math.round(positiveNumber(env, 'MIRRORBOARD_AUDIT_ROTATE_MB', DEFAULT_AUDIT_RETENTION.rotateBytes / MIB) * MIB),
      retainBytes: Math.round(positiveNumber(env, 'MIRRORBOARD_AUDIT_RETAIN_MB', DEFAULT_AUDIT_RETENTION.retainBytes / MIB) * MIB),
      retainMs: Math.round(positiveNumber(env, 'MIRRORBOARD_AUDIT_RETAIN_DAYS', DEFAULT_AUDIT_RETENTION.retainMs / DAY_MS) * DAY_MS),
    },
    kafkaAllowedHosts: HostAllowlist.parse(env.MIRRORBOARD_KAFKA_ALLOWED_HOSTS),
    ...identityConfig(env),
    ha: readHaConfig(env),
  }
}

function identityConfig(env: NodeJS.ProcessEnv): Pick<RuntimeConfig, 'oidc' | 'rolesFile' | 'tokenSignIn' | 'sessionIdleMs'> {
  const oidc = readOidcConfig(env)
  const rolesFile = nonEmpty(env.MIRRORBOARD_ROLES_FILE)
  if (oidc !== null && rolesFile === undefined) {
    throw new Error('MIRRORBOARD_ROLES_FILE must be set with MIRRORBOARD_OIDC_ISSUER: without it nobody signing in would have a role (docs/security.md)')
  }
  return {
    oidc,
    rolesFile: rolesFile === undefined ? undefined : path.resolve(/*turbopackIgnore: true*/ rolesFile),
    tokenSignIn: flag(env, 'MIRRORBOARD_TOKEN_SIGN_IN', true),
    sessionIdleMs: Math.round(positiveNumber(env, 'MIRRORBOARD_SESSION_IDLE_MINUTES', 60) * 60_000),
  }
}
