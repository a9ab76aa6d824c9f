import 'server-only'
import os from 'node:os'
import { readControlConnection, type ControlConnection } from './control-connection'

/** Several instances sharing the mirroring work through a control Kafka cluster (issue #40, docs/high-availability.md). */
export interface HaConfig {
  /** MIRRORBOARD_CONTROL_BOOTSTRAP: `host:port` list of the control cluster. */
  bootstrap: string[]
  /** MIRRORBOARD_CONTROL_SASL_* and MIRRORBOARD_CONTROL_SSL_*: as a cluster connection's (control-connection.ts); absent: plaintext. */
  connection?: ControlConnection
  /** MIRRORBOARD_INSTANCE_ID, default `<hostname>-<pid>`. */
  instanceId: string
  /** MIRRORBOARD_SECRET_KEY: encrypts cluster secrets on the control topic (AES-256-GCM). */
  secretKey: string
  /** MIRRORBOARD_CONTROL_GROUP (default `mirrorboard`): the consumer group, and the prefix of the control topics. */
  group: string
  /** MIRRORBOARD_SESSION_TIMEOUT_MS (default 10,000; the broker allows 6,000 to 300,000 by default). */
  sessionTimeoutMs: number
  /**
   * MIRRORBOARD_ADVERTISED_URL (default MIRRORBOARD_URL, else `http://<HOST or hostname>:<PORT>`): where the other
   * instances reach this one's API, to forward a mirror's requests to it (its owner). Null: not reachable by the others.
   */
  advertisedUrl?: string | null
}

export class HaConfigError extends Error {
  readonly code = 'INVALID_CONFIGURATION'
}

/** Null when MIRRORBOARD_CONTROL_BOOTSTRAP is unset: one instance, exactly as without this feature. */
export function readHaConfig(env: Record<string, string | undefined>): HaConfig | null {
  const bootstrap = (env.MIRRORBOARD_CONTROL_BOOTSTRAP ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  if (bootstrap.length === 0) return null
  for (const entry of bootstrap) {
    if (!/^[^\s:]+:\d{1,5}$/.test(entry)) throw new HaConfigError(`MIRRORBOARD_CONTROL_BOOTSTRAP: "${entry}" is not host:port`)
  }
  const secretKey = env.MIRRORBOARD_SECRET_KEY ?? ''
  if (secretKey.length < 16) throw new HaConfigError('MIRRORBOARD_SECRET_KEY must be set (16 characters or more) when MIRRORBOARD_CONTROL_BOOTSTRAP is: it encrypts the clusters’ secrets on the control cluster')
  const instanceId = env.MIRRORBOARD_INSTANCE_ID?.trim() || `${os.hostname()}-${process.pid}`
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(instanceId)) throw new HaConfigError(`MIRRORBOARD_INSTANCE_ID: "${instanceId}" may hold only A-Z, a-z, 0-9, ".", "_" and "-"`)
  const group = env.MIRRORBOARD_CONTROL_GROUP?.trim() || 'mirrorboard'
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(group)) throw new HaConfigError(`MIRRORBOARD_CONTROL_GROUP: "${group}" may hold only A-Z, a-z, 0-9, ".", "_" and "-"`)
  const sessionTimeoutMs = Number(env.MIRRORBOARD_SESSION_TIMEOUT_MS ?? 10_000)
  if (!Number.isInteger(sessionTimeoutMs) || sessionTimeoutMs < 1_000 || sessionTimeoutMs > 300_000) {
    throw new HaConfigError('MIRRORBOARD_SESSION_TIMEOUT_MS must be a whole number of milliseconds from 1000 to 300000')
  }
  const connection = readControlConnection(env, bootstrap, (message) => new HaConfigError(message))
  return { bootstrap, instanceId, secretKey, group, sessionTimeoutMs, advertisedUrl: advertisedUrlOf(env), ...(Object.keys(connection).length > 0 ? { connection } : {}) }
}

const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]'])

/** The address the others forward to: a listening address of "any" is no address, so the host's name stands in. */
function advertisedUrlOf(env: Record<string, string | undefined>): string {
  const host = env.HOST?.trim() || '127.0.0.1'
  const text = env.MIRRORBOARD_ADVERTISED_URL?.trim() || env.MIRRORBOARD_URL?.trim() || `http://${ANY_ADDRESS.has(host) ? os.hostname() : host}:${env.PORT?.trim() || '3000'}`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new HaConfigError(`MIRRORBOARD_ADVERTISED_URL: "${text}" is not a URL`)
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new HaConfigError(`MIRRORBOARD_ADVERTISED_URL: "${text}" must be an http(s) URL without query or fragment`)
  }
  return url.toString().replace(/\/+$/, '')
}
