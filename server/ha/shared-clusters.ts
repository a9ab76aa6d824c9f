import 'server-only'
import type { Producer } from 'kafkajs'
import type { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import type { KafkaClusterRequest } from '@/server/cluster/kafka/kafka-definition'
import type { ClusterRegistry } from '@/server/cluster/registry'
import { ControlTopicLog, type ControlTopicViews } from './control-topic-log'
import { isSealedBox, open, seal, WrongSecretKeyError, type SealedBox } from './secret-box'

/**
 * The Kafka clusters every instance shares, on a compacted topic of the control cluster (issue #40): one record
 * per cluster, `cluster/<name>`, whose connection request (bootstrap servers, SASL user and password, TLS material)
 * is sealed with AES-256-GCM (secret-box.ts); only the name and bootstrap servers are in the clear. A `key-check`
 * record, sealed by the first instance, lets a later one tell a wrong MIRRORBOARD_SECRET_KEY before it writes
 * anything. The topic and each instance's registry (its data directory is a cache) are reconciled every few
 * seconds, cluster by cluster, against the topic's record this instance last reconciled with (`reconciled`):
 * - the topic's record changed since (another instance added, changed or removed the cluster — a removal is a
 *   tombstone): the topic wins, and the cluster is created, replaced or removed here;
 * - it did not: this instance's change wins, and is written: a Kafka cluster the topic lacks or holds with another
 *   connection is published, one removed here (known from the topic before) gets a tombstone.
 * At start nothing is reconciled yet, so the topic wins for every cluster it names. A cluster a mirror here still
 * uses is not removed or replaced (the same rule as DELETE /clusters/{cluster}); it is tried again at the next round.
 */

const KEY_CHECK = 'key-check'
const CLUSTER_PREFIX = 'cluster/'
const KEY_CHECK_TEXT = 'mirrorboard-control-key-check'
const POLL_MS = 3_000

interface ClusterRecord {
  name: string
  bootstrapServers: string[]
  sealed: SealedBox
}

export class SecretKeyRefusedError extends Error {
  readonly code = 'WRONG_SECRET_KEY'
}

export class SharedClusters {
  private readonly records = new Map<string, string | null>()
  /** Per cluster key, the topic's record (null: a tombstone) this instance last brought its registry in line with. */
  private readonly reconciled = new Map<string, string | null>()
  private readonly log: ControlTopicLog
  private timer: NodeJS.Timeout | null = null
  private syncing: Promise<void> = Promise.resolve()
  private warnedAt = 0

  constructor(
    private readonly deps: {
      topic: string
      key: Buffer
      reader: KafkaCluster
      producer: Producer
      registry: ClusterRegistry
      log: { info(message: string, fields: Record<string, unknown>): void; warn(message: string, fields: Record<string, unknown>): void }
      /** Why a cluster cannot go now (a mirror here uses it), else null. */
      inUse?: (name: string) => string | null
      /** Each read of the topic that succeeded (a round trip to the control cluster). */
      answered?: () => void
      views?: ControlTopicViews
    },
  ) {
    this.log = new ControlTopicLog(deps.reader, deps.topic, deps.views)
  }

  /**
   * Reads the topic to its end and opens every sealed record first: a key that opens none of them refuses the
   * start (SecretKeyRefusedError) before anything is written, here or on the topic. Then imports and publishes.
   */
  async start(): Promise<void> {
    await this.catchUp()
    const requests = this.openAll()
    if (!this.records.has(KEY_CHECK)) await this.write(KEY_CHECK, JSON.stringify(seal(KEY_CHECK_TEXT, this.deps.key, KEY_CHECK)))
    await this.apply(requests)
    this.timer = setInterval(() => {
      this.syncing = this.syncing
        .then(() => this.sync())
        .catch((error: unknown) => {
          // Once a minute while it fails (an unreachable control cluster would write this every three seconds).
          if (Date.now() - this.warnedAt < 60_000) return
          this.warnedAt = Date.now()
          this.deps.log.warn('sharing clusters through the control cluster failed', { error: String(error) })
        })
    }, POLL_MS)
    this.timer.unref()
  }

  /** One round: read the topic on, then reconcile (also what a test calls instead of waiting for the timer). */
  async sync(): Promise<void> {
    await this.catchUp()
    this.deps.answered?.()
    await this.apply(this.openAll())
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.syncing
  }

  /** Every cluster the topic holds, opened; throws SecretKeyRefusedError when this key opens none of what is sealed. */
  private openAll(): Map<string, KafkaClusterRequest> {
    const opened = new Map<string, KafkaClusterRequest>()
    try {
      const check = this.records.get(KEY_CHECK)
      if (check) {
        const box: unknown = JSON.parse(check)
        if (!isSealedBox(box) || open(box, this.deps.key, KEY_CHECK) !== KEY_CHECK_TEXT) throw new WrongSecretKeyError('the key check does not match')
      }
      for (const [key, value] of this.records) {
        if (!key.startsWith('cluster/') || value === null) continue
        const record = JSON.parse(value) as ClusterRecord
        if (!isSealedBox(record.sealed)) continue
        opened.set(record.name, JSON.parse(open(record.sealed, this.deps.key, key)) as KafkaClusterRequest)
      }
    } catch (error) {
      if (error instanceof WrongSecretKeyError) {
        throw new SecretKeyRefusedError(
          `MIRRORBOARD_SECRET_KEY does not open the cluster secrets on the control cluster (topic ${this.deps.topic}): they were sealed with another key. Start every instance with the same key; nothing was changed.`,
          { cause: error },
        )
      }
      throw error
    }
    return opened
  }

  /** Brings the registry and the topic in line, cluster by cluster (the rules in the class comment). */
  private async apply(shared: Map<string, KafkaClusterRequest>): Promise<void> {
    const { registry } = this.deps
    const kafkaHere = new Set(registry.names().filter((name) => registry.kind(name) === 'kafka'))
    const names = new Set([...kafkaHere, ...[...this.records.keys()].filter((key) => key.startsWith(CLUSTER_PREFIX)).map((key) => key.slice(CLUSTER_PREFIX.length))])
    for (const name of names) {
      const key = `${CLUSTER_PREFIX}${name}`
      const onTopic = this.records.has(key) ? (this.records.get(key) ?? null) : undefined
      const request = shared.get(name)
      const here = kafkaHere.has(name) ? await registry.kafkaRequest(name) : null
      try {
        if (onTopic !== undefined && (!this.reconciled.has(key) || this.reconciled.get(key) !== onTopic)) {
          await this.takeFromTopic(name, request ?? null, here)
          this.reconciled.set(key, onTopic)
        } else if (here !== null && (request === undefined || canonical(here) !== canonical(request))) {
          await this.publish(name, here)
        } else if (here === null && registry.names().includes(name) === false && request !== undefined) {
          await this.write(key, null)
          this.reconciled.set(key, null)
          this.deps.log.info('removed a cluster from the control cluster (removed on this instance)', { cluster: name })
        }
      } catch (error) {
        this.deps.log.warn('a cluster shared through the control cluster could not be brought in line here', { cluster: name, error: String(error) })
      }
    }
  }

  /** The topic changed the cluster: create, replace or remove it here. */
  private async takeFromTopic(name: string, request: KafkaClusterRequest | null, here: KafkaClusterRequest | null): Promise<void> {
    const { registry } = this.deps
    if (here !== null && request !== null && canonical(here) === canonical(request)) return
    // An embedded cluster of the same name lives in this instance's data directory only: never replaced or removed.
    if (here === null && registry.names().includes(name)) return
    if (here !== null) {
      await registry.remove(name, () => this.deps.inUse?.(name) ?? null)
      this.deps.log.info(request === null ? 'removed a cluster removed on another instance' : 'removed a cluster changed on another instance, to add it as it is now', { cluster: name })
    }
    if (request === null) return
    await registry.create({ kind: 'kafka', ...request })
    this.deps.log.info('added a cluster shared through the control cluster', { cluster: name })
  }

  private async publish(name: string, request: KafkaClusterRequest): Promise<void> {
    const key = `${CLUSTER_PREFIX}${name}`
    const record: ClusterRecord = { name, bootstrapServers: request.bootstrapServers, sealed: seal(JSON.stringify(request), this.deps.key, key) }
    const value = JSON.stringify(record)
    await this.write(key, value)
    this.reconciled.set(key, value)
    this.deps.log.info('shared a cluster through the control cluster', { cluster: name })
  }

  private async write(key: string, value: string | null): Promise<void> {
    await this.deps.producer.send({ topic: this.deps.topic, acks: -1, messages: [{ key, value }] })
    this.records.set(key, value)
  }

  private async catchUp(): Promise<void> {
    for (const { key, value } of await this.log.readNew()) this.records.set(key, value)
  }
}

/** The request with its keys sorted, to tell a changed connection from the same one written by another instance. */
function canonical(request: KafkaClusterRequest): string {
  return JSON.stringify(request, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value,
  )
}
