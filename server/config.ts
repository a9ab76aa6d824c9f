import 'server-only'
import path from 'node:path'
import { DEFAULT_AUDIT_RETENTION, type AuditRetention } from './audit/audit-files'
import { HostAllowlist } from './cluster/kafka/allowed-hosts'

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
  }
}
