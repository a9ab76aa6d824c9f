import 'server-only'
import type { Producer } from 'kafkajs'
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
 */

const POLL_MS = 2_000

export class ControlTopicOperations implements SharedOperations {
  private readonly records = new Map<string, StoredOperation>()
  private readonly log: ControlTopicLog
  private reading: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly deps: {
      topic: string
      reader: KafkaCluster
      producer: Producer
      warn(message: string, fields: Record<string, unknown>): void
      views?: ControlTopicViews
    },
  ) {
    this.log = new ControlTopicLog(deps.reader, deps.topic, deps.views)
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
    await this.deps.producer.send({ topic: this.deps.topic, acks: -1, messages: [{ key: record.id, value: JSON.stringify(record) }] })
    this.records.set(record.id, record)
  }

  async remove(ids: readonly string[]): Promise<void> {
    await this.deps.producer.send({ topic: this.deps.topic, acks: -1, messages: ids.map((id) => ({ key: id, value: null })) })
    for (const id of ids) this.records.delete(id)
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
