import 'server-only'
import type { Admin, Kafka, Producer } from 'kafkajs'
import { splitBatches } from '@/lib/log/record-batch'
import { decodeRecords } from '@/lib/log/records-view'
import { readPartitionState } from '@/lib/mirror/mirror-state-records'
import { judgeStateWrites, fencedWritesMessage, fencingAfterWrite, type StoredFencing } from '@/lib/mirror/state-fencing'
import { uncompressed } from '../batch-decompression'
import { MirrorStateView } from '../embedded/mirror-state-view'
import { ClusterError } from '../errors'
import type { MirrorStateAppendEntry, SourceCluster, TopicDescription } from '../ports'
import { toKafkaClusterError } from './connection'
import { fetchErrorCode } from './control-scan'

/**
 * The `__mirror_state` equivalent on a Kafka destination (DESIGN.md §5): a compacted topic of one partition on
 * the destination cluster itself, so a restarted server (or another one) resumes from the cluster, not from
 * its own disk. Kafka reserves nothing for us, so the topic is an ordinary one with a name of our own, hidden
 * from topic lists. It carries the engine's records (mirror definitions, partition states, positions) and the
 * emulation's own (`emulation/…` keys: offset translation, epochs, open transactions), which `readMirrorState`
 * leaves out. Fencing (KIP-1279.md §5.3) is checked against the records the topic holds, read up to its high
 * watermark right before each fenced append; a second server appending in between is not seen (no broker-side
 * check is possible through a client).
 */

export const STATE_TOPIC = 'mirrorboard-mirror-state'
export const EMULATION_KEY_PREFIX = 'emulation/'

const FETCH_BYTES = 1 << 20
const decoder = new TextDecoder()

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

export interface StateRecord {
  key: string
  value: string | null
}

/** How the state topic is read: the destination's own source side (kafka-source.ts), with the state topic visible. */
export interface StateTopicReader {
  describeBrokerTopics(topics?: string[]): Promise<TopicDescription[]>
  fetch: SourceCluster['fetch']
}

export class KafkaStateTopic {
  private producer: Producer | null = null
  private exists: boolean | null = null
  /** The engine's records read so far, in log order, and where the next read continues. */
  private readonly records: StateRecord[] = []
  /** The emulation's records: only the latest value per key matters (as compaction keeps it). */
  private readonly emulation = new Map<string, string | null>()
  private nextOffset = 0
  readonly view = new MirrorStateView()
  private readonly fencing = new Map<string, StoredFencing>()
  private writes: Promise<unknown> = Promise.resolve()
  /** The last append queued, while it waits and holds only the emulation's unfenced records (`append`). */
  private waitingEmulation: { entries: MirrorStateAppendEntry[]; written: Promise<void> } | null = null

  constructor(
    private readonly admin: Admin,
    private readonly client: (suffix: string) => Kafka,
    private readonly reader: StateTopicReader,
  ) {}

  private async topicExists(): Promise<boolean> {
    if (this.exists) return true
    const [described] = await this.reader.describeBrokerTopics([STATE_TOPIC])
    this.exists = described !== undefined
    return this.exists
  }

  private async ensureTopic(): Promise<void> {
    if (await this.topicExists()) return
    try {
      await this.admin.createTopics({
        waitForLeaders: true,
        topics: [{ topic: STATE_TOPIC, numPartitions: 1, replicationFactor: -1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
      })
    } catch (error) {
      if ((error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw toKafkaClusterError(error, `create ${STATE_TOPIC}`)
    }
    this.exists = true
  }

  /** Reads what other writers (or an earlier life of this server) appended since the last read. */
  async catchUp(): Promise<void> {
    if (!(await this.topicExists())) return
    const tp = { topic: STATE_TOPIC, partition: 0 }
    for (;;) {
      const [result] = await this.reader.fetch([{ ...tp, fetchOffset: this.nextOffset, lastFetchedEpoch: -1, maxBytes: FETCH_BYTES }], { maxBytes: FETCH_BYTES })
      if (!result) return
      if (!result.ok) {
        // Compaction or retention removed what we had not read: continue at the log start.
        if (result.error.code === 'OFFSET_OUT_OF_RANGE' && result.logStartOffset !== undefined && result.logStartOffset > this.nextOffset) {
          this.nextOffset = result.logStartOffset
          continue
        }
        throw new ClusterError(fetchErrorCode(result), `reading ${STATE_TOPIC}: ${result.error.message}`)
      }
      const batches = splitBatches(result.records).map(({ header, position }) => uncompressed({ ...header, raw: result.records.subarray(position, position + header.sizeInBytes) }))
      if (batches.length === 0) return
      const read: StateRecord[] = []
      for (const record of decodeRecords(batches, { fromOffset: this.nextOffset, includeControl: false })) {
        if (record.key === null) continue
        read.push({ key: decoder.decode(record.key), value: record.value === null ? null : decoder.decode(record.value) })
      }
      this.applyRead(read)
      this.nextOffset = batches.at(-1)!.lastOffset + 1
      if (this.nextOffset >= result.highWatermark) return
    }
  }

  private applyRead(records: StateRecord[]): void {
    for (const record of records) {
      if (record.key.startsWith(EMULATION_KEY_PREFIX)) {
        this.emulation.set(record.key, record.value)
        continue
      }
      this.records.push(record)
      this.view.apply([record])
      if (record.value === null) this.fencing.delete(record.key)
      else {
        const state = readPartitionState(parseJson(record.value))
        if (state) this.fencing.set(record.key, fencingAfterWrite(this.fencing.get(record.key) ?? null, state))
      }
    }
  }

  /** The engine's records in log order (what `readMirrorState` answers). */
  engineRecords(): StateRecord[] {
    return this.records.slice()
  }

  /** The latest value of each emulation key read so far. */
  emulationRecords(): StateRecord[] {
    return [...this.emulation].map(([key, value]) => ({ key, value }))
  }

  /** Appends in one produce (one batch, acks=all); fenced entries are checked first, and a refusal writes nothing. */
  append(entries: MirrorStateAppendEntry[]): Promise<void> {
    const joinable = entries.length > 0 && entries.every((e) => !e.fence && e.key.startsWith(EMULATION_KEY_PREFIX))
    // The emulation's records of partitions appending side by side ride in the append still waiting its turn
    // (one produce for all instead of one round trip each, in turn): it is the last one queued, so the log
    // order of every append stays the order of the calls. Each caller's entries stay in one batch.
    const waiting = this.waitingEmulation
    if (joinable && waiting) {
      waiting.entries.push(...entries)
      return waiting.written
    }
    const queued = { entries: [...entries], written: Promise.resolve() }
    queued.written = this.writes.then(() => {
      if (this.waitingEmulation === queued) this.waitingEmulation = null
      return this.appendNow(queued.entries)
    })
    this.waitingEmulation = joinable ? queued : null
    this.writes = queued.written.catch(() => undefined)
    return queued.written
  }

  private async appendNow(entries: MirrorStateAppendEntry[]): Promise<void> {
    if (entries.length === 0) return
    await this.ensureTopic()
    if (entries.some((e) => e.fence)) await this.catchUp()
    const { fenced } = judgeStateWrites(entries, (key) => this.fencing.get(key) ?? null)
    if (fenced.length > 0) throw new ClusterError(fenced[0]!.code, fencedWritesMessage(fenced), { details: { fenced } })
    const producer = await this.connectedProducer()
    try {
      await producer.send({ topic: STATE_TOPIC, acks: -1, messages: entries.map((e) => ({ partition: 0, key: e.key, value: e.value })) })
    } catch (error) {
      throw toKafkaClusterError(error, `append to ${STATE_TOPIC}`)
    }
    // Read back what we wrote (and anything before it): the log order is the broker's. The emulation's own
    // records need no read-back (it keeps them in memory; a later read takes them in log order), and skipping it
    // halves the round trips of every mirrored append.
    if (entries.some((e) => !e.key.startsWith(EMULATION_KEY_PREFIX))) await this.catchUp()
  }

  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer
    const producer = this.client('mirror-state').producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
    try {
      await producer.connect()
    } catch (error) {
      throw toKafkaClusterError(error, `connect the ${STATE_TOPIC} producer`)
    }
    this.producer = producer
    return producer
  }

  async close(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined)
    this.producer = null
  }
}
