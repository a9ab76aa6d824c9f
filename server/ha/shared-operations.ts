import 'server-only'
import type { Kafka, Producer } from 'kafkajs'
import { UnitTransactions, type UnitFenced } from '@/server/cluster/kafka/unit-transactions'
import type { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import { StoredOperation } from '@/server/engine/operations/operation-store'
import type { SharedOperations } from '@/server/engine/operations/operation-store'
import { ControlTopicLog, type ControlTopicViews } from './control-topic-log'
import { throttledWarning } from './throttled-warning'

/**
 * The engine's shared operations (server/engine/operations/operation-store.ts's SharedOperations) on the control cluster's compacted
 * topic `<group>-operations` (issue #40): one record per operation keyed by its id, the whole durable record the
 * operation store writes to its file (plan, partitions with their accepted stateEpochs, who, when, resumes, outcome),
 * written with acks=all at the same steps; a tombstone once history lets it go. Every instance reads the topic every
 * few seconds (reads of an operation by id answer from it), and to its end before it adopts a mirror, so the new
 * owner resumes the operation where the last durable record of the dead one left it (as Connect's workers read the
 * config topic to its end before they act on an assignment).
 *
 * Fenced per mirror (issue #40): each mirror's records go in transactions of a producer whose transactional id is
 * `<topic>-<mirror>` (unit-transactions.ts); the instance that adopts the mirror claims it before it reads the
 * mirror's operations, so a paused owner that wakes up cannot write its stale view over the new owner's: its write
 * is refused by the broker and, aborted, never read (the topic is read read_committed).
 */

const POLL_MS = 2_000

export class ControlTopicOperations implements SharedOperations {
  private readonly records = new Map<string, StoredOperation>()
  private readonly log: ControlTopicLog
  private reading: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | null = null
  private readonly units: UnitTransactions

  constructor(
    private readonly deps: {
      topic: string
      reader: KafkaCluster
      /** For records of no known mirror (a tombstone of an id never read here). */
      producer: Producer
      /** The control cluster's client: each mirror's transactional producer. */
      client: Kafka
      warn(message: string, fields: Record<string, unknown>): void
      onFenced(fenced: UnitFenced): void
      views?: ControlTopicViews
    },
  ) {
    this.log = new ControlTopicLog(deps.reader, deps.topic, deps.views)
    this.units = new UnitTransactions(() => deps.client, (mirror) => `${deps.topic}-${mirror}`, (fenced) => deps.onFenced(fenced))
  }

  /** This instance adopts `mirror`: its writes of the mirror's operations fence the previous owner's from now on. */
  claim(mirror: string): Promise<void> {
    return this.units.claim(mirror)
  }

  /** Reads the topic to its end, then keeps reading it. */
  async start(): Promise<void> {
    await this.catchUp()
    const readFailed = throttledWarning((message, fields) => this.deps.warn(message, fields))
    this.timer = setInterval(() => {
      this.catchUp().catch((error: unknown) => readFailed('the shared operations could not be read', { topic: this.deps.topic, error: String(error) }))
    }, POLL_MS)
    this.timer.unref()
  }

  async save(record: StoredOperation): Promise<void> {
    await this.units.send(record.mirror, this.deps.topic, [{ key: record.id, value: JSON.stringify(record) }])
    this.records.set(record.id, record)
  }

  async remove(ids: readonly string[]): Promise<void> {
    const byMirror = new Map<string | null, string[]>()
    for (const id of ids) {
      const mirror = this.records.get(id)?.mirror ?? null
      byMirror.set(mirror, [...(byMirror.get(mirror) ?? []), id])
    }
    for (const [mirror, own] of byMirror) {
      const messages = own.map((id) => ({ key: id, value: null }))
      if (mirror === null) await this.deps.producer.send({ topic: this.deps.topic, acks: -1, messages })
      else await this.units.send(mirror, this.deps.topic, messages)
      for (const id of own) this.records.delete(id)
    }
  }

  async ofMirror(mirror: string): Promise<StoredOperation[]> {
    await this.catchUp()
    return this.all().filter((record) => record.mirror === mirror)
  }

  /** Reads what was written since the last read (an id looked up that this instance has not read yet). */
  refresh(): Promise<void> {
    return this.catchUp()
  }

  find(id: string): StoredOperation | null {
    return this.records.get(id) ?? null
  }

  all(): StoredOperation[] {
    return [...this.records.values()]
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.reading.catch(() => undefined)
    await this.units.close()
  }

  /** One read at a time (the log keeps its position); a record that is not an operation is skipped and said. */
  private catchUp(): Promise<void> {
    const read = this.reading.catch(() => undefined).then(async () => {
      for (const { key, value } of await this.log.readNew()) {
        if (value === null) {
          this.records.delete(key)
          continue
        }
        let json: unknown
        try {
          json = JSON.parse(value)
        } catch {
          json = null
        }
        const parsed = StoredOperation.safeParse(json)
        if (parsed.success && parsed.data.id === key) this.records.set(key, parsed.data)
        else this.deps.warn('skipped a record of the shared operations that is not an operation', { topic: this.deps.topic, key })
      }
    })
    this.reading = read
    return read
  }
}
