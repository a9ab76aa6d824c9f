import 'server-only'
import { createRequire } from 'node:module'
import { Kafka, logLevel, type Admin, type KafkaConfig, type SASLOptions } from 'kafkajs'
import type { ConnectionOptions } from 'node:tls'
import { ClusterError, type ClusterErrorCode } from '../errors'
import { guardedSocketFactory, type HostAllowlist } from './allowed-hosts'
import type { ProtocolRequest } from './protocol'

/**
 * One connection to a real Kafka cluster: kafkajs's public client (admin, producers, consumers) and, for the
 * requests the adapter encodes itself (protocol.ts), kafkajs's internal Cluster and per-broker connection
 * pools, so every request goes through the same TLS/SASL sockets. kafkajs keeps Fetch on a connection of its
 * own per broker, so a held fetch never delays metadata or offset requests.
 *
 * Secrets (SASL password, TLS key) are passed to kafkajs and nowhere else: no error message of this module
 * quotes the configuration.
 */

export interface KafkaConnectionConfig {
  bootstrapServers: string[]
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
  ssl?: boolean | { rejectUnauthorized?: boolean; ca?: string; cert?: string; key?: string }
  /** MIRRORBOARD_KAFKA_ALLOWED_HOSTS: every socket kafkajs opens, advertised brokers included, must be on it. */
  allowedHosts?: HostAllowlist | null
}

const requireKafkajs = createRequire(import.meta.url)
/** FindCoordinator's key type for transactional ids (0 is groups). */
const TRANSACTION_COORDINATOR = 1

type KafkajsSocketFactory = Parameters<typeof guardedSocketFactory>[1]

/** kafkajs's own socket factory, guarded by the allowlist when there is one. */
function socketFactoryFor(config: KafkaConnectionConfig): KafkajsSocketFactory {
  const defaultFactory = (requireKafkajs('kafkajs/src/network/socketFactory') as () => KafkajsSocketFactory)()
  return config.allowedHosts ? guardedSocketFactory(config.allowedHosts, defaultFactory) : defaultFactory
}

interface InternalBroker {
  connectionPool: { send<T>(request: ProtocolRequest<T>): Promise<T> }
  disconnect(): Promise<void>
}

interface InternalCluster {
  connect(): Promise<void>
  disconnect(): Promise<void>
  refreshMetadata(): Promise<void>
  getNodeIds(): number[]
  findBroker(options: { nodeId: string }): Promise<InternalBroker>
  findGroupCoordinatorMetadata(options: { groupId: string; coordinatorType: number }): Promise<{ coordinator: { nodeId: number } }>
}

type InternalClusterConstructor = new (options: Record<string, unknown>) => InternalCluster

const silentLogger = () => () => undefined

/** kafkajs options for a connection (TLS, SASL, the allowlist), also the control cluster's (server/ha/ha-runtime.ts). */
export function kafkajsOptions(config: KafkaConnectionConfig, clientId: string): KafkaConfig {
  const options: KafkaConfig = {
    clientId,
    brokers: config.bootstrapServers,
    logLevel: logLevel.NOTHING,
    logCreator: silentLogger,
    connectionTimeout: 5000,
    requestTimeout: 30_000,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2000 },
  }
  if (config.allowedHosts) options.socketFactory = socketFactoryFor(config)
  if (config.ssl !== undefined && config.ssl !== false) {
    options.ssl = config.ssl === true ? true : ({ ...config.ssl } satisfies ConnectionOptions)
  }
  if (config.sasl) {
    const { mechanism, username, password } = config.sasl
    options.sasl = { mechanism, username, password } as SASLOptions
  }
  return options
}

/** kafkajs error names and protocol types → our codes; the broker's own message is kept. */
export function toKafkaClusterError(error: unknown, what: string): ClusterError {
  if (error instanceof ClusterError) return error
  const name = error instanceof Error ? error.name : ''
  const type = typeof error === 'object' && error !== null && 'type' in error ? String((error as { type: unknown }).type) : ''
  const message = error instanceof Error ? error.message : String(error)
  const code: ClusterErrorCode =
    type === 'UNKNOWN_TOPIC_OR_PARTITION' || type === 'UNKNOWN_TOPIC_ID' || type === 'GROUP_ID_NOT_FOUND'
      ? 'NOT_FOUND'
      : type === 'TOPIC_ALREADY_EXISTS'
        ? 'CONFLICT'
        : type === 'INVALID_PARTITIONS' || type === 'INVALID_REPLICATION_FACTOR' || type === 'INVALID_CONFIG' || type === 'INVALID_TOPIC_EXCEPTION' || type === 'INVALID_REQUEST' || type === 'POLICY_VIOLATION'
          ? 'VALIDATION_FAILED'
          : type === 'OFFSET_OUT_OF_RANGE'
            ? 'OFFSET_OUT_OF_RANGE'
            : type === 'NOT_LEADER_FOR_PARTITION' || type === 'NOT_LEADER_OR_FOLLOWER'
              ? 'NOT_LEADER_OR_FOLLOWER'
              : type === 'LEADER_NOT_AVAILABLE'
                ? 'LEADER_NOT_AVAILABLE'
                : type === 'REQUEST_TIMED_OUT' || name === 'KafkaJSRequestTimeoutError'
                  ? 'REQUEST_TIMED_OUT'
                  : type === 'CONCURRENT_TRANSACTIONS'
                    ? 'CONCURRENT_TRANSACTIONS'
                    : type === 'INVALID_TXN_STATE'
                      ? 'INVALID_TXN_STATE'
                      : type === 'INVALID_PRODUCER_EPOCH' || type === 'PRODUCER_FENCED'
                        ? 'INVALID_PRODUCER_EPOCH'
                        : type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE'
                          ? 'RECORD_TOO_LARGE'
                          : type === 'NON_EMPTY_GROUP' || type === 'REBALANCE_IN_PROGRESS'
                            ? 'CONFLICT'
                            : 'SOURCE_UNAVAILABLE'
  return new ClusterError(code, `${what}: ${message}`, { cause: error })
}

function isBrokerNotFound(error: unknown): boolean {
  return error instanceof Error && error.name === 'KafkaJSBrokerNotFound'
}

function isConnectionLoss(error: unknown): boolean {
  const name = error instanceof Error ? error.name : ''
  return name === 'KafkaJSConnectionClosedError' || name === 'KafkaJSConnectionError' || name === 'KafkaJSRequestTimeoutError'
}

export interface BrokerChannel {
  send<T>(nodeId: number | 'any', request: ProtocolRequest<T>): Promise<T>
  /** The broker coordinating a transactional id (FindCoordinator, key type TRANSACTION). */
  transactionCoordinator(transactionalId: string): Promise<number>
  close(): Promise<void>
}

function internalCluster(config: KafkaConnectionConfig, clientId: string): InternalCluster {
  const options = kafkajsOptions(config, clientId)
  const Cluster = requireKafkajs('kafkajs/src/cluster') as InternalClusterConstructor
  const loggers = requireKafkajs('kafkajs/src/loggers') as { createLogger(o: { level: number; logCreator: () => () => void }): unknown; LEVELS: { NOTHING: number } }
  return new Cluster({
    logger: loggers.createLogger({ level: loggers.LEVELS.NOTHING, logCreator: silentLogger }),
    socketFactory: socketFactoryFor(config),
    brokers: config.bootstrapServers,
    ssl: options.ssl,
    sasl: options.sasl,
    clientId,
    connectionTimeout: 5000,
    authenticationTimeout: 10_000,
    requestTimeout: 40_000,
    enforceRequestTimeout: true,
    metadataMaxAge: 300_000,
    allowAutoTopicCreation: false,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2000 },
  })
}

function nodeIdsOf(cluster: InternalCluster): number[] {
  try {
    return cluster.getNodeIds()
  } catch {
    return []
  }
}

async function sendOn<T>(cluster: InternalCluster, nodeId: number | 'any', request: ProtocolRequest<T>): Promise<T> {
  const what = `${request.request.apiName} to broker ${nodeId}`
  // Made only when every attempt failed: an error (and its stack) per request was ~4 % of a busy instance's CPU.
  let lastError: unknown = null
  // Twice: a first failure refreshes kafkajs's broker list (a restarted or moved broker), then one retry.
  for (let attempt = 0; attempt < 2; attempt++) {
    for (const id of nodeId === 'any' ? nodeIdsOf(cluster) : [nodeId]) {
      let broker: InternalBroker | undefined
      try {
        broker = await cluster.findBroker({ nodeId: String(id) })
        return await broker.connectionPool.send(request)
      } catch (error) {
        lastError = error
        // kafkajs reconnects a broker on its next use once it is disconnected.
        if (isConnectionLoss(error)) await broker?.disconnect().catch(() => undefined)
        if (!isConnectionLoss(error) && !isBrokerNotFound(error)) throw toKafkaClusterError(error, what)
      }
    }
    await cluster.refreshMetadata().catch((error: unknown) => {
      lastError = error
    })
  }
  throw toKafkaClusterError(lastError ?? new ClusterError('SOURCE_UNAVAILABLE', `${what}: no broker known`), what)
}

export class KafkaConnection {
  private closed = false

  private constructor(
    private readonly config: KafkaConnectionConfig,
    readonly admin: Admin,
    private readonly cluster: InternalCluster,
    private readonly clientId: string,
  ) {}

  /**
   * Connects (TLS handshake, SASL authentication, metadata); SOURCE_UNAVAILABLE with the broker's reason otherwise.
   * `quick` (checking settings an operator just typed) tries once with a short timeout instead of retrying, so
   * an unroutable address is refused in seconds.
   */
  static async open(config: KafkaConnectionConfig, clientId = 'mirrorboard', opts: { quick?: boolean } = {}): Promise<KafkaConnection> {
    const options = kafkajsOptions(config, clientId)
    if (opts.quick) {
      // Bounded as a whole (connect, handshake, first answer), so a listener that is not Kafka and says nothing
      // fails as soon as a closed port does, once the registry evens their answer times out.
      const probe = new Kafka({ ...options, connectionTimeout: 3000, authenticationTimeout: 5000, requestTimeout: 5000, retry: { retries: 0 } }).admin()
      try {
        await probe.connect()
      } catch (error) {
        throw new ClusterError('SOURCE_UNAVAILABLE', `could not connect to ${config.bootstrapServers.join(', ')}: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
      } finally {
        await probe.disconnect().catch(() => undefined)
      }
    }
    const admin = new Kafka(options).admin()
    const cluster = internalCluster(config, clientId)
    try {
      await admin.connect()
      await cluster.connect()
      await cluster.refreshMetadata()
    } catch (error) {
      await admin.disconnect().catch(() => undefined)
      await cluster.disconnect().catch(() => undefined)
      throw new ClusterError('SOURCE_UNAVAILABLE', `could not connect to ${config.bootstrapServers.join(', ')}: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
    return new KafkaConnection(config, admin, cluster, clientId)
  }

  /** A fresh kafkajs client with the same settings (for producers and consumers with lives of their own). */
  client(clientIdSuffix: string): Kafka {
    return new Kafka(kafkajsOptions(this.config, `${this.clientId}-${clientIdSuffix}`))
  }

  /** Sends one of our requests to a broker (`any`: the first broker of the metadata that answers). */
  async send<T>(nodeId: number | 'any', request: ProtocolRequest<T>): Promise<T> {
    if (this.closed) throw new ClusterError('SOURCE_UNAVAILABLE', 'the Kafka connection is closed')
    return sendOn(this.cluster, nodeId, request)
  }

  /**
   * A channel of sockets of its own to every broker (same TLS/SASL), for requests that should not queue behind
   * others: a broker handles one request per connection at a time, so the emulated produces of each partition
   * get their own, as each kafkajs producer has.
   */
  async channel(clientIdSuffix: string): Promise<BrokerChannel> {
    const cluster = internalCluster(this.config, `${this.clientId}-${clientIdSuffix}`)
    try {
      await cluster.connect()
      // The brokers by node id: requests name their broker.
      await cluster.refreshMetadata()
    } catch (error) {
      await cluster.disconnect().catch(() => undefined)
      throw toKafkaClusterError(error, `connect ${clientIdSuffix}`)
    }
    let closed = false
    return {
      send: (nodeId, request) => (closed ? Promise.reject(new ClusterError('SOURCE_UNAVAILABLE', 'the Kafka channel is closed')) : sendOn(cluster, nodeId, request)),
      transactionCoordinator: async (transactionalId) => {
        try {
          return (await cluster.findGroupCoordinatorMetadata({ groupId: transactionalId, coordinatorType: TRANSACTION_COORDINATOR })).coordinator.nodeId
        } catch (error) {
          throw toKafkaClusterError(error, `find the coordinator of ${transactionalId}`)
        }
      },
      close: async () => {
        closed = true
        await cluster.disconnect().catch(() => undefined)
      },
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.allSettled([this.admin.disconnect(), this.cluster.disconnect()])
  }
}
