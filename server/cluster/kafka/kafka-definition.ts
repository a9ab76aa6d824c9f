import 'server-only'
import { chmod, mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { NAME_PATTERN } from '@/lib/api/common'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { HostAllowlist } from './allowed-hosts'
import type { KafkaConnectionConfig } from './connection'

/**
 * How a Kafka cluster is remembered. The definition (in clusters.json, which any reader of the data dir may
 * see) holds what is not secret: bootstrap servers, the SASL mechanism and user name, whether TLS is on and
 * with which kinds of material. The secrets (SASL password, TLS CA, client certificate and key) live in
 * `<dataDir>/secrets/clusters/<name>.json`, mode 0600 in a 0700 folder, read only to connect, never
 * returned by an endpoint, logged or audited.
 */

export const KafkaDefinition = z.object({
  name: z.string().regex(NAME_PATTERN),
  kind: z.literal('kafka'),
  bootstrapServers: z.array(z.string()).min(1),
  sasl: z.object({ mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']), username: z.string() }).optional(),
  ssl: z.object({ rejectUnauthorized: z.boolean().optional(), ca: z.boolean(), clientCertificate: z.boolean() }).optional(),
  createdAt: z.number().int(),
})
export type KafkaDefinition = z.infer<typeof KafkaDefinition>

const KafkaSecrets = z.object({
  password: z.string().optional(),
  ca: z.string().optional(),
  cert: z.string().optional(),
  key: z.string().optional(),
})
type KafkaSecrets = z.infer<typeof KafkaSecrets>

export interface KafkaClusterRequest {
  name: string
  bootstrapServers: string[]
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | undefined
  ssl?: boolean | { rejectUnauthorized?: boolean | undefined; ca?: string | undefined; cert?: string | undefined; key?: string | undefined } | undefined
}

/** The request as a definition plus its secrets. */
export function splitKafkaRequest(request: KafkaClusterRequest, createdAt: number): { definition: KafkaDefinition; secrets: KafkaSecrets } {
  const definition: KafkaDefinition = { name: request.name, kind: 'kafka', bootstrapServers: [...request.bootstrapServers], createdAt }
  const secrets: KafkaSecrets = {}
  if (request.sasl) {
    definition.sasl = { mechanism: request.sasl.mechanism, username: request.sasl.username }
    secrets.password = request.sasl.password
  }
  if (request.ssl === true) definition.ssl = { ca: false, clientCertificate: false }
  else if (typeof request.ssl === 'object') {
    const { rejectUnauthorized, ca, cert, key } = request.ssl
    definition.ssl = { ca: ca !== undefined, clientCertificate: cert !== undefined, ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }) }
    if (ca !== undefined) secrets.ca = ca
    if (cert !== undefined) secrets.cert = cert
    if (key !== undefined) secrets.key = key
  }
  return { definition, secrets }
}

/** The inverse of `splitKafkaRequest`: what creates the same cluster elsewhere (another instance, issue #40). */
export function joinKafkaRequest(definition: KafkaDefinition, secrets: KafkaSecrets): KafkaClusterRequest {
  const request: KafkaClusterRequest = { name: definition.name, bootstrapServers: [...definition.bootstrapServers] }
  if (definition.sasl) request.sasl = { ...definition.sasl, password: secrets.password ?? '' }
  if (definition.ssl) {
    const { rejectUnauthorized } = definition.ssl
    const material = { ...(secrets.ca === undefined ? {} : { ca: secrets.ca }), ...(secrets.cert === undefined ? {} : { cert: secrets.cert }), ...(secrets.key === undefined ? {} : { key: secrets.key }) }
    request.ssl = rejectUnauthorized === undefined && Object.keys(material).length === 0 ? true : { ...material, ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }) }
  }
  return request
}

export function connectionConfig(definition: KafkaDefinition, secrets: KafkaSecrets, allowedHosts: HostAllowlist | null = null): KafkaConnectionConfig {
  const config: KafkaConnectionConfig = { bootstrapServers: definition.bootstrapServers, allowedHosts }
  if (definition.sasl) config.sasl = { ...definition.sasl, password: secrets.password ?? '' }
  if (definition.ssl) {
    const { rejectUnauthorized } = definition.ssl
    const material = { ...(secrets.ca === undefined ? {} : { ca: secrets.ca }), ...(secrets.cert === undefined ? {} : { cert: secrets.cert }), ...(secrets.key === undefined ? {} : { key: secrets.key }) }
    config.ssl = rejectUnauthorized === undefined && Object.keys(material).length === 0 ? true : { ...material, ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }) }
  }
  return config
}

function secretsDir(dataDir: string): string {
  return path.join(dataDir, 'secrets', 'clusters')
}

function secretsFile(dataDir: string, name: string): string {
  return path.join(secretsDir(dataDir), `${name}.json`)
}

export async function writeKafkaSecrets(dataDir: string, name: string, secrets: KafkaSecrets): Promise<void> {
  await mkdir(secretsDir(dataDir), { recursive: true, mode: 0o700 })
  await chmod(path.join(dataDir, 'secrets'), 0o700)
  await chmod(secretsDir(dataDir), 0o700)
  await writeFileAtomic(secretsFile(dataDir, name), `${JSON.stringify(secrets)}\n`, 0o600)
}

export async function readKafkaSecrets(dataDir: string, name: string): Promise<KafkaSecrets> {
  const text = await readTextIfExists(secretsFile(dataDir, name))
  return text === undefined ? {} : KafkaSecrets.parse(JSON.parse(text))
}

export async function removeKafkaSecrets(dataDir: string, name: string): Promise<void> {
  await rm(secretsFile(dataDir, name), { force: true })
}
