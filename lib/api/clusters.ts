import { z } from 'zod'
import { Name, NonNegativeInt } from './common'

export const ClusterKind = z.enum(['embedded', 'kafka'])
export type ClusterKind = z.infer<typeof ClusterKind>

export const Broker = z.object({ id: NonNegativeInt, alive: z.boolean() })
export type Broker = z.infer<typeof Broker>

export const Cluster = z.object({
  name: Name,
  kind: ClusterKind,
  clusterId: z.string(),
  brokers: z.array(Broker),
  topicCount: NonNegativeInt,
  /** A Kafka cluster's bootstrap servers (`host:port`), as it was added; absent for an embedded cluster. */
  bootstrapServers: z.array(z.string()).optional(),
  /** `unavailable`: the cluster is defined but could not be opened; `error` says why. */
  status: z.enum(['ok', 'unavailable']),
  error: z.string().optional(),
})
export type Cluster = z.infer<typeof Cluster>

export const ClusterList = z.object({ clusters: z.array(Cluster) })
export type ClusterList = z.infer<typeof ClusterList>

export const ClusterParams = z.object({ cluster: Name })

/** `host:port`, `[ipv6]:port`; no scheme, no path. */
export const HostPort = z
  .string()
  .max(300)
  .regex(/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, 'must be host:port')
  .refine((value) => {
    const port = Number(value.slice(value.lastIndexOf(':') + 1))
    return port >= 1 && port <= 65535
  }, 'port must be 1 to 65535')

export const CreateEmbeddedClusterRequest = z.strictObject({
  name: Name,
  kind: z.literal('embedded'),
  brokers: z.number().int().min(1).max(9).optional().describe('Broker count, 3 by default.'),
  firstProducerId: NonNegativeInt.max(2 ** 40)
    .optional()
    .describe("First producer id handed out (Kafka starts at 0); 4001 reproduces the KIP's worked example."),
  transactionTimeoutMs: z
    .number()
    .int()
    .min(100)
    .max(15 * 60_000)
    .optional()
    .describe('How long an open transaction may stay idle before the coordinator aborts it (60 s by default).'),
})

export const CreateKafkaClusterRequest = z.strictObject({
  name: Name,
  kind: z.literal('kafka'),
  bootstrapServers: z.array(HostPort).min(1).max(100),
  sasl: z
    .strictObject({
      mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
      username: z.string().min(1).max(1024),
      // Never answered back (cluster views show the mechanism and username only): writeOnly in the OpenAPI document.
      password: z.string().min(1).max(1024).meta({ writeOnly: true }),
    })
    .optional(),
  ssl: z
    .union([
      z.boolean(),
      z.strictObject({
        rejectUnauthorized: z.boolean().optional(),
        ca: z.string().max(100_000).optional().describe('PEM of the CA that signed the brokers\' certificates.'),
        cert: z.string().max(100_000).optional().describe('PEM client certificate (mutual TLS).'),
        key: z.string().max(100_000).optional().describe('PEM private key of the client certificate; write-only.').meta({ writeOnly: true }),
      }),
    ])
    .optional(),
})

export const CreateClusterRequest = z.discriminatedUnion('kind', [CreateEmbeddedClusterRequest, CreateKafkaClusterRequest])
export type CreateClusterRequest = z.infer<typeof CreateClusterRequest>
