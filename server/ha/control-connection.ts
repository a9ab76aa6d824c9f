import 'server-only'
import { readFileSync } from 'node:fs'
import { CreateKafkaClusterRequest } from '@/lib/api/clusters'
import type { KafkaConnectionConfig } from '@/server/cluster/kafka/connection'

/**
 * How the control cluster is reached: `MIRRORBOARD_CONTROL_*` with the same SASL and TLS choices as a cluster
 * connection added through the API (`POST /clusters` with kind `kafka`), checked by the same request schema
 * (lib/api/clusters.ts) and handed to the same kafkajs configuration builder (server/cluster/kafka/connection.ts).
 * Combinations that cannot work are refused at start with the variable to fix; PEM material and the password may
 * come from files (`…_FILE`), read here once.
 */

export type ControlConnection = Pick<KafkaConnectionConfig, 'sasl' | 'ssl'>

const MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const

function value(env: Record<string, string | undefined>, name: string): string | undefined {
  const text = env[name]?.trim()
  return text ? text : undefined
}

function fileText(env: Record<string, string | undefined>, name: string, fail: (message: string) => Error): string | undefined {
  const file = value(env, name)
  if (file === undefined) return undefined
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw fail(`${name}: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
  }
}

/** The SASL and TLS options of the control cluster; `{}` for plaintext. `fail` makes the caller's configuration error. */
export function readControlConnection(env: Record<string, string | undefined>, bootstrap: string[], fail: (message: string) => Error): ControlConnection {
  const mechanismText = value(env, 'MIRRORBOARD_CONTROL_SASL_MECHANISM')
  const username = value(env, 'MIRRORBOARD_CONTROL_SASL_USERNAME')
  const passwordValue = env.MIRRORBOARD_CONTROL_SASL_PASSWORD
  const passwordFile = fileText(env, 'MIRRORBOARD_CONTROL_SASL_PASSWORD_FILE', fail)
  if (passwordValue !== undefined && passwordValue !== '' && passwordFile !== undefined) {
    throw fail('set one of MIRRORBOARD_CONTROL_SASL_PASSWORD and MIRRORBOARD_CONTROL_SASL_PASSWORD_FILE, not both')
  }
  const password = passwordFile?.replace(/\r?\n$/, '') ?? (passwordValue === '' ? undefined : passwordValue)
  let sasl: KafkaConnectionConfig['sasl']
  if (mechanismText !== undefined || username !== undefined || password !== undefined) {
    const mechanism = mechanismText?.toLowerCase()
    if (mechanism === undefined) throw fail('MIRRORBOARD_CONTROL_SASL_MECHANISM must be set (plain, scram-sha-256 or scram-sha-512) with a SASL user name or password for the control cluster')
    if (!(MECHANISMS as readonly string[]).includes(mechanism)) throw fail(`MIRRORBOARD_CONTROL_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512, not "${mechanismText}"`)
    if (username === undefined) throw fail('MIRRORBOARD_CONTROL_SASL_USERNAME must be set with MIRRORBOARD_CONTROL_SASL_MECHANISM')
    if (password === undefined) throw fail('MIRRORBOARD_CONTROL_SASL_PASSWORD (or MIRRORBOARD_CONTROL_SASL_PASSWORD_FILE) must be set with MIRRORBOARD_CONTROL_SASL_MECHANISM')
    sasl = { mechanism: mechanism as (typeof MECHANISMS)[number], username, password }
  }

  const sslText = value(env, 'MIRRORBOARD_CONTROL_SSL')
  if (sslText !== undefined && sslText !== '0' && sslText !== '1') throw fail(`MIRRORBOARD_CONTROL_SSL must be 1 or 0, not "${sslText}"`)
  const rejectText = value(env, 'MIRRORBOARD_CONTROL_SSL_REJECT_UNAUTHORIZED')
  if (rejectText !== undefined && rejectText !== '0' && rejectText !== '1') throw fail(`MIRRORBOARD_CONTROL_SSL_REJECT_UNAUTHORIZED must be 1 or 0, not "${rejectText}"`)
  const ca = fileText(env, 'MIRRORBOARD_CONTROL_SSL_CA_FILE', fail)
  const cert = fileText(env, 'MIRRORBOARD_CONTROL_SSL_CERT_FILE', fail)
  const key = fileText(env, 'MIRRORBOARD_CONTROL_SSL_KEY_FILE', fail)
  let ssl: KafkaConnectionConfig['ssl']
  if (sslText !== '1') {
    const stray = (['MIRRORBOARD_CONTROL_SSL_CA_FILE', 'MIRRORBOARD_CONTROL_SSL_CERT_FILE', 'MIRRORBOARD_CONTROL_SSL_KEY_FILE', 'MIRRORBOARD_CONTROL_SSL_REJECT_UNAUTHORIZED'] as const).find((name) => value(env, name) !== undefined)
    if (stray !== undefined) throw fail(`${stray} is set but MIRRORBOARD_CONTROL_SSL is not 1: set MIRRORBOARD_CONTROL_SSL=1 to reach the control cluster over TLS`)
  } else {
    if ((cert === undefined) !== (key === undefined)) throw fail('MIRRORBOARD_CONTROL_SSL_CERT_FILE and MIRRORBOARD_CONTROL_SSL_KEY_FILE go together (a client certificate and its private key)')
    const material = { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }), ...(rejectText === undefined ? {} : { rejectUnauthorized: rejectText === '1' }) }
    ssl = Object.keys(material).length === 0 ? true : material
  }

  // What POST /clusters accepts for a Kafka cluster: the same limits (host:port, lengths, PEM sizes) apply here.
  const checked = CreateKafkaClusterRequest.safeParse({ name: 'control', kind: 'kafka', bootstrapServers: bootstrap, ...(sasl ? { sasl } : {}), ...(ssl !== undefined ? { ssl } : {}) })
  if (!checked.success) {
    const issue = checked.error.issues[0]
    const field = issue?.path.join('.') ?? ''
    const variable = field.startsWith('bootstrapServers') ? 'MIRRORBOARD_CONTROL_BOOTSTRAP' : field.startsWith('sasl') ? `MIRRORBOARD_CONTROL_SASL_${String(issue?.path[1] ?? '').toUpperCase()}` : 'MIRRORBOARD_CONTROL_SSL_*'
    throw fail(`${variable}: ${issue?.message ?? 'not accepted'} (${field})`)
  }
  return { ...(sasl ? { sasl } : {}), ...(ssl !== undefined ? { ssl } : {}) }
}
