import 'server-only'
import type { Producer } from 'kafkajs'
import type { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import type { KafkaClusterRequest } from '@/server/cluster/kafka/kafka-definition'
import type { ClusterRegistry } from '@/server/cluster/registry'
import { ControlTopicLog } from './control-topic-log'
import { isSealedBox, open, seal, WrongSecretKeyError, type SealedBox } from './secret-box'

/**
 * The Kafka clusters every instance shares, on a compacted topic of the control cluster (issue #40): one record
 * per cluster, `cluster/<name>`, whose connection request (bootstrap servers, SASL user and password, TLS material)
 * is sealed with AES-256-GCM (secret-box.ts); only the name and bootstrap servers are in the clear. A `key-check`
 * record, sealed by the first instance, lets a later one tell a wrong MIRRORBOARD_SECRET_KEY before it writes
 * anything. Each instance creates the clusters it does not know yet in its own registry (its data directory is a
 * cache) and publishes the Kafka clusters it has that the topic does not; it reads the topic again every few seconds.
 * Not yet: removing a cluster on one instance does not remove it on the others.
 */

const KEY_CHECK = 'key-check'
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
  private readonly log: ControlTopicLog
  private timer: NodeJS.Timeout | null = null
  private syncing: Promise<void> = Promise.resolve()

  constructor(
    private readonly deps: {
      topic: string
      key: Buffer
      reader: KafkaCluster
      producer: Producer
      registry: ClusterRegistry
      log: { info(message: string, fields: Record<string, unknown>): void; warn(message: string, fields: Record<string, unknown>): void }
    },
  ) {
    this.log = new ControlTopicLog(deps.reader, deps.topic)
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
      this.syncing = this.syncing.then(() => this.sync()).catch((error: unknown) => this.deps.log.warn('sharing clusters through the control cluster failed', { error: String(error) }))
    }, POLL_MS)
    this.timer.unref()
  }

  private async sync(): Promise<void> {
    await this.catchUp()
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

  /** Creates locally the clusters only the topic has; publishes the Kafka clusters only this instance has. */
  private async apply(shared: Map<string, KafkaClusterRequest>): Promise<void> {
    const { registry } = this.deps
    for (const [name, request] of shared) {
      if (registry.names().includes(name)) continue
      try {
        await registry.create({ kind: 'kafka', ...request })
        this.deps.log.info('added a cluster shared through the control cluster', { cluster: name })
      } catch (error) {
        this.deps.log.warn('a cluster shared through the control cluster could not be added here', { cluster: name, error: String(error) })
      }
    }
    for (const name of registry.names()) {
      if (shared.has(name) || registry.kind(name) !== 'kafka') continue
      const request = await registry.kafkaRequest(name)
      const key = `cluster/${name}`
      const record: ClusterRecord = { name, bootstrapServers: request.bootstrapServers, sealed: seal(JSON.stringify(request), this.deps.key, key) }
      await this.write(key, JSON.stringify(record))
      this.deps.log.info('shared a cluster through the control cluster', { cluster: name })
    }
  }

  private async write(key: string, value: string): Promise<void> {
    await this.deps.producer.send({ topic: this.deps.topic, acks: -1, messages: [{ key, value }] })
    this.records.set(key, value)
  }

  private async catchUp(): Promise<void> {
    for (const { key, value } of await this.log.readNew()) this.records.set(key, value)
  }
}
