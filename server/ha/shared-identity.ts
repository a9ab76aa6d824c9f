import 'server-only'
import type { Producer } from 'kafkajs'
import type { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import type { IdentityReplica, SharedIdentityStore } from '@/server/http/identity-replica'
import { ControlTopicLog, type ControlTopicViews } from './control-topic-log'
import { throttledWarning } from './throttled-warning'
import { isSealedBox, open, seal } from './secret-box'

/**
 * Who is signed in, shared by every instance of a group (issue #40: "a browser or the CLI may talk to any instance
 * behind a load balancer"): browser sessions, named API tokens and sign-ins under way at the identity provider,
 * one record each on the compacted topic `<group>-identity`, keyed `<store>/<id>` (ids are hashes or the sign-in's
 * state, never a secret), the value sealed with AES-256-GCM under MIRRORBOARD_SECRET_KEY (a session holds the
 * person's ID token; a sign-in under way its PKCE verifier), a tombstone when it ends.
 *
 * An instance publishes before it answers (the cookie, the token's secret, the redirect to the provider), reads
 * the topic every second, and reads it at once when a request brings credentials it does not know yet, so the
 * request right after a sign-in may reach any instance. Each instance keeps its copy in its data directory as
 * before (a cache): with the control cluster unreachable it still knows everyone who signed in until then.
 */

const POLL_MS = 1_000
const WRITE_TIMEOUT_MS = 3_000

export class SharedIdentity {
  private readonly log: ControlTopicLog
  private readonly stores = new Map<string, SharedIdentityStore>()
  private timer: NodeJS.Timeout | null = null
  private reading: Promise<void> | null = null
  private closed = false
  /** A failed read, said once a minute while the control cluster does not answer (it is read every second). */
  private readonly readFailed = throttledWarning((message, fields) => this.deps.log.warn(message, fields))

  constructor(
    private readonly deps: {
      topic: string
      key: Buffer
      reader: KafkaCluster
      producer: Producer
      stores: readonly SharedIdentityStore[]
      log: { warn(message: string, fields: Record<string, unknown>): void; info(message: string, fields: Record<string, unknown>): void }
      views?: ControlTopicViews
    },
  ) {
    this.log = new ControlTopicLog(deps.reader, deps.topic, deps.views)
    for (const store of deps.stores) this.stores.set(store.sharedPrefix, store)
  }

  /** Reads the topic to its end into the stores, publishes what only this instance holds, then follows the topic. */
  async start(): Promise<void> {
    const seen = await this.readInto()
    let published = 0
    for (const store of this.deps.stores) {
      for (const [id, value] of store.sharedEntries()) {
        if (seen.has(`${store.sharedPrefix}/${id}`)) continue
        await this.write(`${store.sharedPrefix}/${id}`, value)
        published++
      }
      store.attachReplica(this.replicaOf(store.sharedPrefix))
    }
    if (published > 0) this.deps.log.info('shared the sign-ins this instance held through the control cluster', { published })
    this.timer = setInterval(() => void this.refresh(), POLL_MS)
    this.timer.unref()
  }

  /** Reads what the others published since the last read; calls at the same time share one read. */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.reading ??= this.readInto()
      .then(() => undefined)
      .catch((error: unknown) => this.readFailed('reading the shared sign-ins from the control cluster failed', { error: String(error) }))
      .finally(() => {
        this.reading = null
      })
    return this.reading
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    await this.reading
  }

  private replicaOf(prefix: string): IdentityReplica {
    return {
      put: (id, value) => this.write(`${prefix}/${id}`, value),
      remove: (id) => this.write(`${prefix}/${id}`, null),
    }
  }

  /** The keys read, in log order, each applied to its store. */
  private async readInto(): Promise<Set<string>> {
    const seen = new Set<string>()
    for (const { key, value } of await this.log.readNew()) {
      const slash = key.indexOf('/')
      const store = slash < 0 ? undefined : this.stores.get(key.slice(0, slash))
      if (store === undefined) continue
      seen.add(key)
      try {
        store.applyShared(key.slice(slash + 1), value === null ? null : this.unseal(key, value))
      } catch (error) {
        // Sealed under another key (refused at start by the cluster key check) or damaged: this one is not applied.
        this.deps.log.warn('a shared sign-in record could not be opened', { key: key.slice(0, slash), error: String(error) })
      }
    }
    return seen
  }

  private unseal(key: string, value: string): unknown {
    const box: unknown = JSON.parse(value)
    if (!isSealedBox(box)) throw new Error('not a sealed record')
    return JSON.parse(open(box, this.deps.key, key))
  }

  private async write(key: string, value: unknown): Promise<void> {
    try {
      const sealed = value === null ? null : JSON.stringify(seal(JSON.stringify(value), this.deps.key, key))
      const sent = this.deps.producer.send({ topic: this.deps.topic, acks: -1, messages: [{ key, value: sealed }] })
      // A control cluster that does not answer must not hold a sign-in for the producer's retries.
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the control cluster within ${WRITE_TIMEOUT_MS} ms`)), WRITE_TIMEOUT_MS)
      })
      await Promise.race([sent, late]).finally(() => clearTimeout(timer))
    } catch (error) {
      this.deps.log.warn('a sign-in could not be shared through the control cluster; it works on this instance only', { key: key.slice(0, key.indexOf('/')), error: String(error) })
    }
  }
}
