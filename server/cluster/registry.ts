import 'server-only'
// Over 400 lines on purpose: the cluster registry's lifecycle (create, open, remove, per-cluster queue) over one durable file, for both kinds (Kafka's behaviour lives in kafka/; only the branching is here), and each cluster's ports and client; splitting it would split one queue.
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import type { CreateClusterRequest } from '@/lib/api/clusters'
import { NAME_PATTERN } from '@/lib/api/common'
import type { ClusterEvent } from '@/lib/api/events'
import type { Emulation } from '@/lib/api/mirrors'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { Logger } from '@/server/observability/logger'
import type { CollectedFamily } from '@/server/observability/metrics'
import { embeddedClient, kafkaClient, type ClusterClient } from './cluster-client'
import { ClusterMetrics, type ClusterMetricsOptions } from './cluster-metrics'
import { EmbeddedCluster } from './embedded/embedded-cluster'
import { ClusterError } from './errors'
import type { HostAllowlist } from './kafka/allowed-hosts'
import { KafkaCluster } from './kafka/kafka-cluster'
import { connectionConfig, joinKafkaRequest, KafkaDefinition, readKafkaSecrets, removeKafkaSecrets, splitKafkaRequest, writeKafkaSecrets, type KafkaClusterRequest } from './kafka/kafka-definition'
import type { MirrorHost, SourceCluster, TopicPartition } from './ports'

/**
 * The clusters the app manages (API.md "Clusters"): their lifecycle, and the ports and client of each. Definitions live in
 * `<dataDir>/clusters.json` (replaced atomically); an embedded cluster's data lives in
 * `<dataDir>/clusters/<name>/`. A definition is written before its cluster is created, so after a crash
 * the cluster is simply opened (created) again; a directory without a definition is a leftover and is
 * cleared before a cluster of that name is created.
 *
 * Clusters that fail to open stay listed as unavailable (with the reason) rather than stopping the app.
 * Failures are ClusterErrors; the API's shapes and the data-plane requests are server/api/cluster-api.ts's.
 */

const EmbeddedDefinition = z.object({
  name: z.string().regex(NAME_PATTERN),
  kind: z.literal('embedded'),
  brokers: z.number().int().min(1),
  /** Overrides of the embedded cluster's config given at creation; re-applied at every open. */
  config: z.object({ firstProducerId: z.number().int().nonnegative().optional(), transactionTimeoutMs: z.number().int().positive().optional() }),
  createdAt: z.number().int(),
})
type ClusterDefinition = z.infer<typeof EmbeddedDefinition> | KafkaDefinition

const DefinitionsFile = z.object({ version: z.literal(1), clusters: z.array(z.discriminatedUnion('kind', [EmbeddedDefinition, KafkaDefinition])) })

/** How often each embedded cluster runs its timers (transaction timeouts, ISR shrink, member expiry). */
const TICK_INTERVAL_MS = 500

interface OpenCluster {
  definition: ClusterDefinition
  cluster: EmbeddedCluster | null
  /** Set for clusters of kind kafka once connected (then `cluster` stays null). */
  kafka?: KafkaCluster | null
  /** Why the cluster could not be opened. */
  error: string | null
  /** Known at open, when every broker runs; served while the brokers are stopped. */
  clusterId: string
  topicCount: number
}

export interface ClusterRegistryOptions {
  dataDir: string
  log: Logger
  /** Receives a `cluster` event after every change made through the registry. */
  publish?: (event: ClusterEvent) => void
  now?: () => number
  /** MIRRORBOARD_KAFKA_ALLOWED_HOSTS; null or absent: any host. */
  kafkaAllowedHosts?: HostAllowlist | null
  /** Instances share the work (issue #40): writes into Kafka clusters are fenced per partition by transactional ids. */
  fencedWrites?: boolean
}

/** Another instance fenced this one's writes of a unit of work (a mirror) on a Kafka cluster (issue #40). */
export interface WritesFenced {
  cluster: string
  unit: string
  transactionalId: string
  error: ClusterError
  /** unit-transactions.ts `UnitFenced.reason`: fenced by another instance, or this instance's producer lost. */
  reason: 'fenced' | 'producerLost'
}

/**
 * Kafka's quick connection check gives up within about 5 s (3 s to connect, 5 s for an answer): every failure
 * that names no Kafka or TLS reason answers no sooner than this, whatever refused it, closed port or silent one.
 */
const CONNECTION_FAILURE_MIN_MS = 6000

/**
 * What a failed Kafka connection tells the caller. Reasons that come from a Kafka broker (SASL authentication)
 * or a TLS handshake (certificate checks) are what the operator must fix and say so; anything else (refused,
 * reset, timed out, unresolvable, not speaking Kafka) is one message, so the API cannot be used to probe which
 * addresses and ports of the server's network are open. The real reason goes to the server log.
 */
export function connectionFailureReason(servers: readonly string[], reason: string): { message: string; specific: boolean } {
  if (/authenticat|SASL|certificate|self[- ]signed|unable to verify|ERR_TLS/i.test(reason)) {
    return { message: reason.startsWith('could not connect') ? reason : `could not connect to ${servers.join(', ')}: ${reason}`, specific: true }
  }
  return { message: `could not connect to ${servers.join(', ')}: Connection failed: no Kafka broker answered (refused, unreachable, timed out, or not a Kafka listener)`, specific: false }
}

/** A cluster as the registry knows it: what the API's `Cluster` shows (server/api/cluster-api.ts maps it). */
export interface ClusterStatus {
  name: string
  kind: 'embedded' | 'kafka'
  clusterId: string
  brokers: Array<{ id: number; alive: boolean }>
  topicCount: number
  /** A Kafka cluster's bootstrap servers (not secret: the SASL password and TLS key are kept apart). */
  bootstrapServers?: string[]
  /** Open and answering; false while it could not be opened (`error` says why). */
  open: boolean
  error: string | null
}

export class ClusterRegistry {
  private readonly clusters = new Map<string, OpenCluster>()
  private readonly file: string
  private readonly now: () => number
  /** Creations run one at a time: two requests for the same name must not both pass the existence check. */
  private creating: Promise<unknown> = Promise.resolve()
  private closed = false
  private readonly metrics = new ClusterMetrics()
  private readonly fencedListeners = new Set<(fenced: WritesFenced) => void>()

  private constructor(private readonly options: ClusterRegistryOptions) {
    this.file = path.join(options.dataDir, 'clusters.json')
    this.now = options.now ?? Date.now
  }

  static async open(options: ClusterRegistryOptions): Promise<ClusterRegistry> {
    const registry = new ClusterRegistry(options)
    const text = await readTextIfExists(registry.file)
    const definitions = text === undefined ? [] : DefinitionsFile.parse(JSON.parse(text)).clusters
    for (const definition of definitions) {
      const entry: OpenCluster = { definition, cluster: null, error: null, clusterId: '', topicCount: 0 }
      registry.clusters.set(definition.name, entry)
      try {
        await registry.start(entry)
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error)
        options.log.error('could not open cluster', { cluster: definition.name, error })
      }
    }
    return registry
  }

  /** Called when another instance fenced this one's writes of a unit of work (issue #40: it stops that work here). */
  onWritesFenced(listener: (fenced: WritesFenced) => void): () => void {
    this.fencedListeners.add(listener)
    return () => this.fencedListeners.delete(listener)
  }

  private writesFenced(fenced: WritesFenced): void {
    this.options.log.warn('writes fenced: another instance took this work over', { cluster: fenced.cluster, unit: fenced.unit, transactionalId: fenced.transactionalId })
    for (const listener of this.fencedListeners) listener(fenced)
  }

  private clusterDir(name: string): string {
    return path.join(this.options.dataDir, 'clusters', name)
  }

  private async start(entry: OpenCluster): Promise<void> {
    const { definition } = entry
    if (definition.kind === 'kafka') {
      const kafka = await KafkaCluster.open(definition.name, connectionConfig(definition, await readKafkaSecrets(this.options.dataDir, definition.name), this.options.kafkaAllowedHosts ?? null), { fencedWrites: this.options.fencedWrites ?? false, onWritesFenced: (fenced) => this.writesFenced({ cluster: definition.name, ...fenced }) })
      entry.kafka = kafka
      entry.error = null
      entry.clusterId = await kafka.clusterId()
      entry.topicCount = (await kafka.describeTopics()).length
      return
    }
    const cluster = await EmbeddedCluster.open(this.clusterDir(definition.name), {
      name: definition.name,
      brokers: definition.brokers,
      config: { ...definition.config, tickIntervalMs: TICK_INTERVAL_MS },
    })
    entry.cluster = cluster
    entry.error = null
    entry.clusterId = await cluster.clusterId()
    entry.topicCount = (await cluster.describeTopics()).length
  }

  private async saveDefinitions(): Promise<void> {
    const clusters = [...this.clusters.values()].map((entry) => entry.definition)
    await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, clusters }, null, 1)}\n`, 0o644)
  }

  private publish(event: ClusterEvent): void {
    this.options.publish?.(event)
  }

  /** Publishes a `cluster` event for a change made outside the registry (topic administration). */
  announce(event: ClusterEvent): void {
    this.publish(event)
  }

  private entry(name: string): OpenCluster {
    const entry = this.clusters.get(name)
    if (!entry) throw new ClusterError('NOT_FOUND', `cluster ${JSON.stringify(name)} does not exist`, { details: { cluster: name } })
    return entry
  }

  /**
   * The embedded cluster behind a name (for the engine and the routes); NOT_FOUND or SOURCE_UNAVAILABLE, and
   * VALIDATION_FAILED for a Kafka cluster, which offers only what `kafka()` and `ports()` give.
   */
  embedded(name: string): EmbeddedCluster {
    const entry = this.entry(name)
    if (entry.definition.kind === 'kafka') {
      throw new ClusterError('VALIDATION_FAILED', `cluster ${name} is a Kafka cluster: this operation is offered on embedded clusters only`, { details: { cluster: name, kind: 'kafka' } })
    }
    if (entry.cluster === null) throw new ClusterError('SOURCE_UNAVAILABLE', `cluster ${name} could not be opened: ${entry.error ?? 'unknown error'}`)
    return entry.cluster
  }

  /** The Kafka cluster behind a name, or null for an embedded one; SOURCE_UNAVAILABLE while it cannot be reached. */
  private kafka(name: string): KafkaCluster | null {
    const entry = this.entry(name)
    if (entry.definition.kind !== 'kafka') return null
    if (!entry.kafka) throw new ClusterError('SOURCE_UNAVAILABLE', `cluster ${name} could not be opened: ${entry.error ?? 'unknown error'}`)
    return entry.kafka
  }

  /** The data plane of a cluster of either kind (topics, records, groups, topic administration). */
  client(name: string): ClusterClient {
    const kafka = this.kafka(name)
    return kafka ? kafkaClient(kafka) : embeddedClient(this.embedded(name))
  }

  /** Counts a topic created through the API, for the view served while every broker is stopped. */
  topicCreated(name: string): void {
    this.entry(name).topicCount += 1
  }

  /**
   * What a Kafka destination emulates (kafka/emulation-notes.ts), for a mirror into it or one of its mirror
   * partitions; null for an embedded cluster (a native destination) or one not open.
   */
  emulation(name: string, tp?: TopicPartition): Emulation | null {
    const entry = this.clusters.get(name)
    if (entry?.definition.kind !== 'kafka' || !entry.kafka) return null
    return entry.kafka.host.emulationNotes(tp)
  }

  /** The engine's view of a cluster of either kind: the source and destination ports. */
  ports(name: string): { source: SourceCluster; host: MirrorHost } {
    const kafka = this.kafka(name)
    if (kafka) return { source: kafka.source, host: kafka.host }
    const embedded = this.embedded(name)
    return { source: embedded, host: embedded }
  }

  names(): string[] {
    return [...this.clusters.keys()]
  }

  /**
   * What creates this Kafka cluster on another instance, secrets included (issue #40: the control cluster holds it
   * sealed, server/ha/shared-clusters.ts). Server-only; never returned by an endpoint. NOT_FOUND for an unknown name.
   */
  async kafkaRequest(name: string): Promise<KafkaClusterRequest> {
    const { definition } = this.entry(name)
    if (definition.kind !== 'kafka') throw new ClusterError('VALIDATION_FAILED', `cluster ${name} is not a Kafka cluster`)
    return joinKafkaRequest(definition, await readKafkaSecrets(this.options.dataDir, name))
  }

  /** What a cluster is, known even while it cannot be opened; NOT_FOUND for an unknown name. */
  kind(name: string): 'embedded' | 'kafka' {
    return this.entry(name).definition.kind
  }

  private async view(entry: OpenCluster): Promise<ClusterStatus> {
    const { cluster, definition } = entry
    if (definition.kind === 'kafka') {
      const kafka = entry.kafka ?? null
      let brokers: ClusterStatus['brokers'] = []
      if (kafka) {
        brokers = await kafka.brokers()
        entry.topicCount = await kafka.describeTopics().then((topics) => topics.length, () => entry.topicCount)
      }
      return {
        name: definition.name,
        kind: 'kafka',
        clusterId: entry.clusterId,
        brokers,
        topicCount: entry.topicCount,
        bootstrapServers: [...definition.bootstrapServers],
        open: kafka !== null,
        error: entry.error,
      }
    }
    if (cluster !== null) {
      try {
        entry.topicCount = (await cluster.describeTopics()).length
      } catch {
        // Every broker is stopped: the last known count is still the best answer.
      }
    }
    return {
      name: definition.name,
      kind: definition.kind,
      clusterId: entry.clusterId,
      brokers: cluster?.brokers() ?? [],
      topicCount: entry.topicCount,
      open: cluster !== null,
      error: entry.error,
    }
  }

  async list(): Promise<ClusterStatus[]> {
    return Promise.all([...this.clusters.values()].map((entry) => this.view(entry)))
  }

  async describe(name: string): Promise<ClusterStatus> {
    return this.view(this.entry(name))
  }

  create(request: CreateClusterRequest): Promise<ClusterStatus> {
    const task = this.creating.then(() => this.createNow(request))
    this.creating = task.catch(() => undefined)
    return task
  }

  private async createNow(request: CreateClusterRequest): Promise<ClusterStatus> {
    if (this.closed) throw new ClusterError('SOURCE_UNAVAILABLE', 'the server is shutting down')
    if (this.clusters.has(request.name)) {
      throw new ClusterError('CONFLICT', `cluster ${JSON.stringify(request.name)} already exists`, { details: { cluster: request.name } })
    }
    if (request.kind === 'kafka') return this.createKafkaNow(request)
    const definition: ClusterDefinition = {
      name: request.name,
      kind: 'embedded',
      brokers: request.brokers ?? 3,
      config: {
        ...(request.firstProducerId === undefined ? {} : { firstProducerId: request.firstProducerId }),
        ...(request.transactionTimeoutMs === undefined ? {} : { transactionTimeoutMs: request.transactionTimeoutMs }),
      },
      createdAt: this.now(),
    }
    const entry: OpenCluster = { definition, cluster: null, error: null, clusterId: '', topicCount: 0 }
    const dir = this.clusterDir(definition.name)
    // No definition names this directory, so it is what a failed creation left behind.
    await rm(dir, { recursive: true, force: true })
    await mkdir(path.dirname(dir), { recursive: true })
    this.clusters.set(definition.name, entry)
    try {
      await this.saveDefinitions()
      await this.start(entry)
    } catch (error) {
      this.clusters.delete(definition.name)
      await entry.cluster?.close().catch(() => undefined)
      await this.saveDefinitions().catch(() => undefined)
      await rm(dir, { recursive: true, force: true }).catch(() => undefined)
      throw error
    }
    this.publish({ cluster: definition.name, change: 'created' })
    return this.view(entry)
  }

  /**
   * A Kafka cluster is saved only once it answered: connected (TLS, SASL), told its cluster id and brokers.
   * A refusal is CLUSTER_CONNECTION_FAILED with the broker's reason (never the secrets), and nothing is written.
   */
  private async createKafkaNow(request: Extract<CreateClusterRequest, { kind: 'kafka' }>): Promise<ClusterStatus> {
    const { definition, secrets } = splitKafkaRequest(request, this.now())
    const allowlist = this.options.kafkaAllowedHosts ?? null
    const refused = allowlist?.refused(definition.bootstrapServers) ?? []
    if (refused.length > 0) {
      throw new ClusterError('VALIDATION_FAILED', `${refused.join(', ')} not allowed: the server connects only to MIRRORBOARD_KAFKA_ALLOWED_HOSTS (${allowlist?.source})`, {
        details: { issues: [{ path: 'body.bootstrapServers', message: 'not in MIRRORBOARD_KAFKA_ALLOWED_HOSTS' }] },
      })
    }
    let kafka: KafkaCluster
    const started = Date.now()
    try {
      kafka = await KafkaCluster.open(definition.name, connectionConfig(definition, secrets, allowlist), { quick: true, fencedWrites: this.options.fencedWrites ?? false, onWritesFenced: (fenced) => this.writesFenced({ cluster: definition.name, ...fenced }) })
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      const { message, specific } = connectionFailureReason(definition.bootstrapServers, reason)
      if (!specific) {
        this.options.log.warn('a new Kafka cluster did not connect', { cluster: definition.name, reason })
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, CONNECTION_FAILURE_MIN_MS - (Date.now() - started))))
      }
      throw new ClusterError('CLUSTER_CONNECTION_FAILED', message, { details: { cluster: definition.name, bootstrapServers: definition.bootstrapServers } })
    }
    const entry: OpenCluster = { definition, cluster: null, kafka, error: null, clusterId: await kafka.clusterId(), topicCount: 0 }
    try {
      // The secrets first: a cluster that names() lists is read whole by kafkaRequest(), and the control cluster's
      // sharing (server/ha/shared-clusters.ts) read one listed before its secrets were written and published it
      // without its credentials, to every other instance.
      await writeKafkaSecrets(this.options.dataDir, definition.name, secrets)
      this.clusters.set(definition.name, entry)
      await this.saveDefinitions()
    } catch (error) {
      this.clusters.delete(definition.name)
      await kafka.close().catch(() => undefined)
      await this.saveDefinitions().catch(() => undefined)
      await removeKafkaSecrets(this.options.dataDir, definition.name).catch(() => undefined)
      throw error
    }
    this.publish({ cluster: definition.name, change: 'created' })
    return this.view(entry)
  }

  /**
   * Removes a cluster: closes it, drops its definition, then its data directory. Runs in the creation queue, so a
   * creation of the same name cannot interleave. `stillInUse` is asked inside the queue (a mirror that uses the
   * cluster refuses the removal with CONFLICT); the definition goes first, so a crash leaves only a directory
   * that the next creation of the name clears.
   */
  remove(name: string, stillInUse: () => string | null): Promise<void> {
    const task = this.creating.then(() => this.removeNow(name, stillInUse))
    this.creating = task.catch(() => undefined)
    return task
  }

  private async removeNow(name: string, stillInUse: () => string | null): Promise<void> {
    if (this.closed) throw new ClusterError('SOURCE_UNAVAILABLE', 'the server is shutting down')
    const entry = this.entry(name)
    const reason = stillInUse()
    if (reason !== null) throw new ClusterError('CONFLICT', reason, { details: { cluster: name } })
    this.clusters.delete(name)
    await this.saveDefinitions()
    await entry.cluster?.close().catch((error: unknown) => this.options.log.error('could not close a removed cluster', { cluster: name, error }))
    await entry.kafka?.close().catch((error: unknown) => this.options.log.error('could not close a removed cluster', { cluster: name, error }))
    await removeKafkaSecrets(this.options.dataDir, name)
    await rm(this.clusterDir(name), { recursive: true, force: true })
    this.publish({ cluster: name, change: 'deleted' })
  }

  // METRICS

  /** The registry's gauges for GET /api/metrics (cluster-metrics.ts). */
  collectMetrics(options: ClusterMetricsOptions = {}): Promise<CollectedFamily[]> {
    return this.metrics.collect(
      [...this.clusters].map(([name, entry]) => ({ name, cluster: entry.cluster, kafka: entry.kafka })),
      options,
    )
  }

  /** Closes every cluster (logs flushed); the registry refuses new clusters afterwards. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.creating
    const results = await Promise.allSettled([...this.clusters.values()].map((entry) => entry.cluster?.close() ?? entry.kafka?.close()))
    for (const result of results) if (result.status === 'rejected') this.options.log.error('could not close a cluster', { error: result.reason })
  }
}
