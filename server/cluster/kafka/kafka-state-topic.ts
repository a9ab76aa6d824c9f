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
import { createTopicsAwaitingLeaders } from './create-topics'
import { fetchErrorCode } from './control-scan'
import type { RecordsPage } from '../embedded/records-view'
import { UnitTransactions, type UnitFenced } from './unit-transactions'

/**
 * The `__mirror_state` equivalent on a Kafka destination (DESIGN.md §5): a compacted topic of one partition on
 * the destination cluster itself, so a restarted server (or another one) resumes from the cluster, not from
 * its own disk. Kafka reserves nothing for us, so the topic is an ordinary one with a name of our own, hidden
 * from topic lists. It carries the engine's records (mirror definitions, partition states, positions) and the
 * emulation's own (`emulation/…` keys: offset translation, epochs, open transactions), which `readMirrorState`
 * leaves out. Fencing (KIP-1279.md §5.3) is checked against the records the topic holds, read up to its high
 * watermark right before each fenced append; a second server appending in between is not seen (no broker-side
 * check is possible through a client).
 *
 * Instances sharing the work (issue #40, `fencedWrites`): each mirror's records (`mirror/…`, `partition/…`,
 * `position/…` keys) are written in transactions of a producer whose transactional id names the mirror
 * (unit-transactions.ts), which the instance adopting the mirror claims first (`claimMirror`): a zombie's later
 * write is refused by the broker and never becomes readable, since the topic is then read read_committed. That
 * broker-side check is what closes the window the read-then-append check above leaves.
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

/** Issue #40: the records of each mirror written in its own transactions, and the topic read read_committed. */
export interface StateTopicFencing {
  readCommitted(fromOffset: number): Promise<RecordsPage>
  onFenced(fenced: UnitFenced): void
}

/**
 * An entry to append; `unit`: the mirror whose transactional id writes it (an emulation topic record, which names its
 * mirror in its value — or, made writable, names none, and then goes as the mirror that had it).
 */
export type StateAppendEntry = MirrorStateAppendEntry & { unit?: string }

/**
 * The mirror a record belongs to: an engine record's by its key (`mirror/<m>`, `partition/<m>/…`, `position/<m>/…`),
 * an emulation record's by the `unit` it was given; null for the rest (written by the instance's own producer).
 */
function mirrorOf(entry: StateAppendEntry): string | null {
  if (entry.key.startsWith(EMULATION_KEY_PREFIX)) return entry.unit ?? null
  const [kind, mirror] = entry.key.split('/')
  return (kind === 'mirror' || kind === 'partition' || kind === 'position') && mirror ? mirror : null
}

/**
 * How long a write waits to read itself back: past its own COMMIT marker, and past any transaction opened before it
 * by a writer that died or froze mid-transaction (the last stable offset waits for that one until the mirror's new
 * owner claims it, or it times out: unit-transactions.ts's 30 s plus the broker's 10 s check).
 */
const MARKER_WAIT_MS = 60_000

export class KafkaStateTopic {
  private producer: Producer | null = null
  private exists: boolean | null = null
  /** The engine's records read so far, in log order, and where the next read continues. */
  private readonly records: StateRecord[] = []
  /** The emulation's records: only the latest value per key matters (as compaction keeps it). */
  private readonly emulation = new Map<string, string | null>()
  private nextOffset = 0
  /** The last stable offset the latest read_committed read answered with. */
  private stableTo = 0
  readonly view = new MirrorStateView()
  private readonly fencing = new Map<string, StoredFencing>()
  private writes: Promise<unknown> = Promise.resolve()
  /** The last append queued, while it waits and holds only the emulation's unfenced records (`append`). */
  private waitingEmulation: { entries: StateAppendEntry[]; written: Promise<void> } | null = null
  private readonly units: UnitTransactions | null

  constructor(
    private readonly admin: Admin,
    private readonly client: (suffix: string) => Kafka,
    private readonly reader: StateTopicReader,
    private readonly transactions?: StateTopicFencing,
  ) {
    this.units = transactions ? new UnitTransactions(client, (mirror) => `mirrorboard-state-${mirror}`, (fenced) => transactions.onFenced(fenced)) : null
  }

  /**
   * This instance takes `mirror` over (issue #40): its transactional id is initialised here now, which fences the
   * previous owner's writes and aborts its open transaction, before the mirror is read from the topic.
   */
  async claimMirror(mirror: string): Promise<void> {
    if (!this.units) return
    await this.ensureTopic()
    try {
      await this.units.claim(mirror)
    } catch (error) {
      throw toKafkaClusterError(error, `claim the ${STATE_TOPIC} writes of ${mirror}`)
    }
  }

  private async topicExists(): Promise<boolean> {
    if (this.exists) return true
    const [described] = await this.reader.describeBrokerTopics([STATE_TOPIC])
    this.exists = described !== undefined
    return this.exists
  }

  private async ensureTopic(): Promise<void> {
    if (await this.topicExists()) return
    try {
      await createTopicsAwaitingLeaders(this.admin, {
        topics: [{ topic: STATE_TOPIC, numPartitions: 1, replicationFactor: -1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
      })
    } catch (error) {
      if ((error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw toKafkaClusterError(error, `create ${STATE_TOPIC}`)
    }
    this.exists = true
  }

  /** Creates the topic when it is not there yet (a writer producing to it by itself, outside `append`). */
  ensureExists(): Promise<void> {
    return this.ensureTopic()
  }

  /**
   * Reads everything committed up to the topic's high watermark as of now, waiting (as a write waits to read itself
   * back) for transactions open below it to end: after a claim, the previous writer's last commit is read for sure.
   */
  async catchUpToEnd(): Promise<void> {
    if (!(await this.topicExists())) return
    const [described] = await this.reader.describeBrokerTopics([STATE_TOPIC])
    const end = described?.partitions[0]?.highWatermark ?? 0
    const deadline = Date.now() + MARKER_WAIT_MS
    for (;;) {
      await this.catchUp()
      // The last offsets may be markers or aborted records, which a read_committed read does not hand over.
      if (this.nextOffset >= end || this.stableTo >= end) return
      if (Date.now() > deadline) throw new ClusterError('REQUEST_TIMED_OUT', `${STATE_TOPIC} did not become readable up to ${end} within ${MARKER_WAIT_MS} ms (a transaction open below it)`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** Reads what other writers (or an earlier life of this server) appended since the last read. */
  async catchUp(): Promise<void> {
    if (!(await this.topicExists())) return
    if (this.transactions) return this.catchUpCommitted(this.transactions)
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

  /** What committed transactions and plain writes hold, up to the last stable offset (a zombie's aborted writes never). */
  private async catchUpCommitted(transactions: StateTopicFencing): Promise<void> {
    for (;;) {
      let page: RecordsPage
      try {
        page = await transactions.readCommitted(this.nextOffset)
      } catch (error) {
        const logStart = (error as { code?: string; details?: { logStartOffset?: number } }).code === 'OFFSET_OUT_OF_RANGE' ? (error as { details?: { logStartOffset?: number } }).details?.logStartOffset : undefined
        if (logStart === undefined || logStart <= this.nextOffset) throw error
        this.nextOffset = logStart
        continue
      }
      const read: StateRecord[] = []
      for (const record of page.records) if (record.type === 'DATA' && record.key !== null && record.encoding === undefined) read.push({ key: record.key, value: record.value })
      this.applyRead(read)
      this.stableTo = Math.max(this.stableTo, page.lastStableOffset)
      const last = page.records.at(-1)
      if (!last) return
      this.nextOffset = last.offset + 1
      if (this.nextOffset >= page.lastStableOffset) return
    }
  }

  /** Reads until the records up to `offset` are readable (a commit's marker lands after EndTxn answers). */
  private async readPast(offset: number): Promise<void> {
    const deadline = Date.now() + MARKER_WAIT_MS
    for (;;) {
      await this.catchUp()
      if (this.nextOffset > offset) return
      if (Date.now() > deadline) throw new ClusterError('REQUEST_TIMED_OUT', `the commit of offset ${offset} did not become readable on ${STATE_TOPIC} within ${MARKER_WAIT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 20))
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
  append(entries: StateAppendEntry[]): Promise<void> {
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

  private async appendNow(entries: StateAppendEntry[]): Promise<void> {
    if (entries.length === 0) return
    await this.ensureTopic()
    if (entries.some((e) => e.fence)) await this.catchUp()
    const { fenced } = judgeStateWrites(entries, (key) => this.fencing.get(key) ?? null)
    if (fenced.length > 0) throw new ClusterError(fenced[0]!.code, fencedWritesMessage(fenced), { details: { fenced } })
    if (this.units && entries.some((e) => mirrorOf(e) !== null)) return this.appendByMirror(this.units, entries)
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

  /**
   * Each mirror's records in one transaction of its own producer (others' records, if any, first as before). A
   * mirror whose transaction fails leaves the others' written: the error names the keys that were
   * (`details.written`), so the callers of those learn they are durable.
   */
  private async appendByMirror(units: UnitTransactions, entries: StateAppendEntry[]): Promise<void> {
    const byMirror = new Map<string, StateAppendEntry[]>()
    const others: StateAppendEntry[] = []
    for (const entry of entries) {
      const mirror = mirrorOf(entry)
      if (mirror === null) others.push(entry)
      else byMirror.set(mirror, [...(byMirror.get(mirror) ?? []), entry])
    }
    if (others.length > 0) await this.appendNow(others)
    const written: string[] = others.map((e) => e.key)
    let failed: unknown = null
    let lastOffset = -1
    for (const [mirror, own] of byMirror) {
      try {
        lastOffset = Math.max(lastOffset, await units.send(mirror, STATE_TOPIC, own.map((e) => ({ partition: 0, key: e.key, value: e.value }))))
        written.push(...own.map((e) => e.key))
      } catch (error) {
        failed ??= error
      }
    }
    if (lastOffset >= 0) await this.readPast(lastOffset)
    if (failed !== null) {
      const error = toKafkaClusterError(failed, `append to ${STATE_TOPIC}`)
      throw new ClusterError(error.code, error.message, { cause: failed, details: { ...error.details, written } })
    }
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
    await this.units?.close()
    await this.producer?.disconnect().catch(() => undefined)
    this.producer = null
  }
}
