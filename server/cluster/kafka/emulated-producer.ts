import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import type { Kafka, Message, Producer, Transaction } from 'kafkajs'
import type { LogRecord } from '@/lib/log/types'
import { decodeBatchRecords, encodeBatch, readControlInfo } from '@/lib/log/record-batch'
import { crc32c } from '@/server/storage/crc32c'
import type { BatchHeader } from '@/lib/log/types'
import { uncompressed } from '../batch-decompression'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import { toKafkaClusterError, type BrokerChannel } from './connection'
import { PipelinedProducer } from './pipelined-producer'
import { keepsItsBytes, restampInto } from './restamped-batch'

/**
 * The destination side's producers (DESIGN.md §5): one source batch becomes one produce (one destination
 * batch) with the records' keys, values, headers and timestamps. Batches outside transactions go through one
 * idempotent producer; each open source transaction is reproduced by a transactional producer of its own per
 * source producer and partition, so its COMMIT or ABORT lands where the source's did. Batches outside
 * transactions are pipelined: several produces in flight per partition (pipelined-producer.ts says why that
 * keeps order and never writes twice); a transactional batch or a marker waits until they are all answered. The producer ids and
 * epochs the broker assigns are its own. EndTxn answers before the coordinator writes the marker, so ending a
 * transaction waits until the marker is in the log before anything else is produced to the partition.
 */

/** Kafka's transaction.max.timeout.ms default: a source transaction may stay open that long before the broker aborts ours. */
const TRANSACTION_TIMEOUT_MS = 900_000
const MARKER_WAIT_MS = 15_000

export type EndMarker = 'COMMIT' | 'ABORT'

export interface ProducedBatch {
  /** Where the broker put the batch's first record. */
  baseOffset: number
  /** Source offset → destination offset of each record produced. */
  records: Array<{ sourceOffset: number; destinationOffset: number }>
}

/**
 * How a pipelined produce ended; `sequence` is the one it took, for `recover`; `generation`, the partition's
 * producers it was sent by (a failure of producers dropped since then says nothing about the current ones).
 */
export type ProduceOutcome = { ok: true; produced: ProducedBatch } | { ok: false; error: ClusterError; sequence: number; generation?: number }

/** Refusals of the producer's own state: sending its batches again under the same id cannot succeed. */
const PRODUCER_STATE_ERRORS = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH', 'INVALID_PRODUCER_ID_MAPPING', 'DUPLICATE_SEQUENCE_NUMBER', 'PRODUCER_FENCED'])

function kafkaErrorType(error: ClusterError): string {
  const cause = error.cause
  return typeof cause === 'object' && cause !== null && 'type' in cause ? String((cause as { type: unknown }).type) : ''
}

function recordsOf(batch: Uint8Array, header: BatchHeader): LogRecord[] {
  const opened = uncompressed({ ...header, raw: batch })
  return decodeBatchRecords(opened.raw, opened)
}

function messagesOf(tp: TopicPartition, records: LogRecord[]): Message[] {
  return records.map((record) => ({
    partition: tp.partition,
    key: record.key === null ? null : Buffer.from(record.key),
    value: record.value === null ? null : Buffer.from(record.value),
    timestamp: String(record.timestamp),
    headers: headersOf(record.headers),
  }))
}

function placed(records: LogRecord[], baseOffset: number): ProducedBatch {
  return { baseOffset, records: records.map((record, index) => ({ sourceOffset: record.offset, destinationOffset: baseOffset + index })) }
}

function headersOf(headers: Array<{ key: string; value: Uint8Array | null }>): Message['headers'] {
  const out: Record<string, Buffer[]> = {}
  for (const { key, value } of headers) (out[key] ??= []).push(value === null ? Buffer.alloc(0) : Buffer.from(value))
  return out
}

interface TransactionalEntry {
  producer: Producer
  transaction: Transaction | null
}

export class EmulatedProducers {
  /** One per partition, each with sockets of its own: a broker answers one request per connection at a time, and partitions are mirrored in parallel. */
  private readonly idempotent = new TopicPartitionMap<Promise<PipelinedProducer>>()
  /** By partition, then source producer id. */
  private readonly transactional = new TopicPartitionMap<Map<number, TransactionalEntry>>()
  /** Partitions whose writes another instance fenced (issue #40): nothing more is produced here until `unfence`. */
  private readonly fenced = new TopicPartitionMap<ClusterError>()
  /**
   * Counts each partition's re-adoptions (`unfence`): a produce still in flight from before one (a zombie's write,
   * refused as fenced) must neither fence nor renew the producers of the partition re-adopted since.
   */
  private readonly generations = new TopicPartitionMap<number>()

  constructor(
    private readonly client: (suffix: string) => Kafka,
    private readonly channel: (suffix: string) => Promise<BrokerChannel>,
    /** Names the transactional ids, so two engines mirroring into one cluster never share one. */
    private readonly idPrefix: string,
    /** The broker's high watermark of a partition (every produce is acks=all: it is the log end). */
    private readonly highWatermark: (tp: TopicPartition) => Promise<number>,
    /**
     * Instances share the work (issue #40): each partition's pipelined producer takes the transactional id
     * `<idPrefix>-<topic>-<partition>`, so the instance that takes the partition over fences this one's writes.
     */
    private readonly fencedWrites = false,
    /**
     * Atomic appends (issue #40, with fenced writes): those batches go in a transaction of that id, committed with the
     * emulation's state record of them (`commitState`); see pipelined-producer.ts.
     */
    private readonly atomic = false,
    /** Atomic appends: where the emulation's records go (added to each transaction with the data partition). */
    private readonly statePartition: TopicPartition | null = null,
  ) {}

  /**
   * Atomic appends: takes the partition's transactional id if its producer has not yet (the previous writer's open
   * transaction is aborted, its later writes refused). `producer` names the producer that did: another one (a renewed
   * producer, a re-adoption) claims again, and the caller reads the state the previous one committed again.
   */
  async claim(tp: TopicPartition): Promise<{ producerId: number; producer: object }> {
    const fenced = this.fenced.get(tp)
    if (fenced) throw fenced
    const producer = await this.idempotentProducer(tp)
    try {
      return { producerId: (await producer.claim()).producerId, producer }
    } catch (error) {
      throw toKafkaClusterError(error, `claim the writes of ${tp.topic}-${tp.partition}`)
    }
  }

  /**
   * Atomic appends: opens the partition's next transaction (AddPartitionsToTxn) ahead of its first batch, if `claimed`
   * is still the partition's producer and it is not fenced here; the batches and the commit wait for it (and fail with
   * its refusal). Nothing to wait for here.
   */
  beginTransaction(tp: TopicPartition, claimed: object | undefined): void {
    const pending = this.idempotent.get(tp)
    if (!pending || claimed === undefined || this.fenced.get(tp)) return
    void pending.then((producer) => (producer === claimed ? producer.begin() : undefined)).catch(() => undefined)
  }

  /** Atomic appends: whether the partition's open transaction holds data batches (its COMMIT marker takes an offset). */
  async holdsData(tp: TopicPartition): Promise<boolean> {
    const producer = await this.idempotent.get(tp)?.catch(() => undefined)
    return producer?.holdsData ?? false
  }

  /**
   * Atomic appends: commits the partition's open transaction with `records` (its emulation state) written to `state`
   * in it. A failure leaves the producer dropped (its transaction aborted where the coordinator can be told), so the
   * next write claims the id again; a fenced one leaves the partition fenced here.
   */
  async commitState(tp: TopicPartition, state: TopicPartition, stateLeader: number, records: Array<{ key: string; value: string | null }>): Promise<void> {
    const fenced = this.fenced.get(tp)
    if (fenced) throw fenced
    const generation = this.generationOf(tp)
    const producer = await this.idempotentProducer(tp)
    try {
      await producer.commit(state, stateLeader, records)
    } catch (error) {
      const refused = toKafkaClusterError(error, `commit the writes of ${tp.topic}-${tp.partition}`)
      if (refused.code === 'INVALID_PRODUCER_EPOCH' && generation === this.generationOf(tp)) this.fenced.set(tp, refused)
      await this.abandon(tp)
      throw refused
    }
  }

  /**
   * Atomic appends: the open transaction aborted (as far as the coordinator can be told) and the producer dropped. An
   * abort refused as fenced leaves the partition fenced here: the producer that replaces this one must never claim the
   * id again by itself (its InitProducerId would take the partition back from the instance that owns it now).
   */
  async abandon(tp: TopicPartition): Promise<void> {
    const generation = this.generationOf(tp)
    const producer = await this.idempotent.get(tp)?.catch(() => undefined)
    await producer?.abort().catch((error: unknown) => {
      const refused = toKafkaClusterError(error, `abort the writes of ${tp.topic}-${tp.partition}`)
      if (refused.code === 'INVALID_PRODUCER_EPOCH' && generation === this.generationOf(tp)) this.fenced.set(tp, refused)
    })
    await this.renewIdempotent(tp)
  }

  /** The partition was taken over and given back (issue #40): this instance may write it again, under a new epoch. */
  unfence(tp: TopicPartition): void {
    this.fenced.delete(tp)
    this.generations.set(tp, this.generationOf(tp) + 1)
  }

  private generationOf(tp: TopicPartition): number {
    return this.generations.get(tp) ?? 0
  }

  private async connect(producer: Producer, what: string): Promise<Producer> {
    try {
      await producer.connect()
    } catch (error) {
      throw toKafkaClusterError(error, `connect ${what}`)
    }
    return producer
  }

  /**
   * Starts the produce of one source data batch outside transactions to the partition's `leader`; up to
   * MAX_IN_FLIGHT may be in flight per partition, and they are written in the order of these calls. Never
   * rejects: a failure is an outcome, to be taken in order (and `recover`ed from) once all have settled.
   */
  async startProduce(tp: TopicPartition, leader: number, batch: Uint8Array, header: BatchHeader): Promise<ProduceOutcome> {
    const what = `produce to ${tp.topic}-${tp.partition}`
    let sequence = -1
    const generation = this.generationOf(tp)
    const fenced = this.fenced.get(tp)
    // Never a new producer (whose InitProducerId would fence the instance that now owns the partition).
    if (fenced) return { ok: false, error: fenced, sequence, generation }
    try {
      const asIs = keepsItsBytes(header)
      const records = asIs ? null : recordsOf(batch, header)
      if (records?.length === 0) return { ok: true, produced: { baseOffset: -1, records: [] } }
      const producer = await this.idempotentProducer(tp)
      sequence = producer.sequence
      if (records === null) {
        // Restamped straight into the produce request: the source batch is copied once on its way to the socket.
        const baseOffset = await producer.send(leader, header.recordCount, (stamp) => ({ byteLength: batch.byteLength, writeInto: (target) => restampInto(batch, stamp, target) }))
        return { ok: true, produced: { baseOffset, records: Array.from({ length: header.recordCount }, (_, i) => ({ sourceOffset: header.baseOffset + i, destinationOffset: baseOffset + i })) } }
      }
      const baseOffset = await producer.send(leader, records.length, (stamp) => encodeBatch({ baseOffset: 0, partitionLeaderEpoch: -1, ...stamp, timestamp: Date.now(), records }, crc32c))
      return { ok: true, produced: placed(records, baseOffset) }
    } catch (error) {
      const refused = toKafkaClusterError(error, what)
      // Refused for a producer of before the partition was re-adopted: the new producers are not fenced.
      if (this.fencedWrites && refused.code === 'INVALID_PRODUCER_EPOCH' && generation === this.generationOf(tp)) this.fenced.set(tp, refused)
      return { ok: false, error: refused, sequence, generation }
    }
  }

  /**
   * After a failed pipelined produce, nothing of the partition in flight any more: the next batch takes the
   * failed one's sequence again (a copy the broker holds is answered, not written twice), unless the broker
   * refused the producer's state, which a new producer id then replaces.
   */
  async recover(tp: TopicPartition, failed: Extract<ProduceOutcome, { ok: false }>): Promise<void> {
    // The partition was re-adopted since: its producers were dropped then, and the current ones owe nothing to this failure.
    if (failed.generation !== undefined && failed.generation !== this.generationOf(tp)) return
    const producer = await this.idempotent.get(tp)?.catch(() => undefined)
    if (producer && failed.sequence >= 0 && !PRODUCER_STATE_ERRORS.has(kafkaErrorType(failed.error))) producer.resumeAt(failed.sequence)
    else await this.renewIdempotent(tp)
  }

  /** Produces one data batch of an open source transaction through that source producer's transactional producer. */
  async produceTransactional(tp: TopicPartition, batch: Uint8Array, header: BatchHeader): Promise<ProducedBatch> {
    const records = recordsOf(batch, header)
    if (records.length === 0) return { baseOffset: -1, records: [] }
    const what = `produce to ${tp.topic}-${tp.partition}`
    try {
      const answers = await (await this.transactionOf(tp, header.producerId)).send({ topic: tp.topic, acks: -1, messages: messagesOf(tp, records) })
      const answer = answers.find((a) => a.partition === tp.partition)
      if (!answer || answer.errorCode !== 0) throw new ClusterError('SOURCE_UNAVAILABLE', `${what}: the broker did not acknowledge the batch`)
      return placed(records, Number(answer.baseOffset ?? answer.offset))
    } catch (error) {
      throw toKafkaClusterError(error, what)
    }
  }

  /** True when a destination transaction is open for the source producer (it saw a data batch of it). */
  hasTransaction(tp: TopicPartition, sourceProducerId: number): boolean {
    return this.transactional.get(tp)?.get(sourceProducerId)?.transaction != null
  }

  /**
   * Commits or aborts the destination transaction of a source producer and waits until its marker is in the log
   * (at `expectedOffset`). Returns false when no transaction of that producer is open here.
   */
  async end(tp: TopicPartition, sourceProducerId: number, marker: EndMarker, expectedOffset: number): Promise<boolean> {
    const entry = this.transactional.get(tp)?.get(sourceProducerId)
    if (!entry?.transaction) return false
    const { transaction } = entry
    entry.transaction = null
    try {
      if (marker === 'COMMIT') await transaction.commit()
      else await transaction.abort()
    } catch (error) {
      throw toKafkaClusterError(error, `${marker} the transaction of source producer ${sourceProducerId} on ${tp.topic}-${tp.partition}`)
    }
    const deadline = Date.now() + MARKER_WAIT_MS
    while ((await this.highWatermark(tp)) <= expectedOffset) {
      if (Date.now() > deadline) throw new ClusterError('REQUEST_TIMED_OUT', `the ${marker} marker of source producer ${sourceProducerId} did not reach ${tp.topic}-${tp.partition} within ${MARKER_WAIT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return true
  }

  /**
   * Initialises the transactional id of a source producer's destination transaction again, as a restarted
   * server must: the coordinator aborts the transaction the previous server left open (its ABORT marker lands
   * asynchronously). Resolves with the high watermark once the marker is in, or after `settleMs` when the old
   * transaction held nothing on this partition (no marker then).
   */
  async fenceOrphan(tp: TopicPartition, sourceProducerId: number, fromOffset: number, settleMs = 3000): Promise<number> {
    if (this.transactional.get(tp)?.get(sourceProducerId) === undefined) {
      const transactionalId = this.transactionalIdOf(tp, sourceProducerId)
      const producer = this.client(`mirror-txn-${tp.partition}-${sourceProducerId}`).producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout: TRANSACTION_TIMEOUT_MS, allowAutoTopicCreation: false })
      await this.connect(producer, `the transactional producer ${transactionalId}`)
      try {
        // kafkajs sends InitProducerId at the first transaction(), not at connect(); ending the empty transaction
        // sends nothing (no partition was added), leaving the producer ready for the source's next records.
        await (await producer.transaction()).abort()
      } catch (error) {
        throw toKafkaClusterError(error, `initialise ${transactionalId} again`)
      }
      this.producersOf(tp).set(sourceProducerId, { producer, transaction: null })
    }
    const deadline = Date.now() + settleMs
    for (;;) {
      const highWatermark = await this.highWatermark(tp)
      if (highWatermark > fromOffset || Date.now() > deadline) return highWatermark
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /**
   * Drops the transactional producers of a partition (after a MIRROR_PID_RESET); with `idempotent`, its
   * idempotent producer too (the topic is rebuilt: its sequence numbers belong to the deleted log).
   */
  async forget(tp: TopicPartition, options: { idempotent?: true } = {}): Promise<void> {
    const gone = [...(this.transactional.get(tp)?.values() ?? [])].map((entry) => entry.producer)
    this.transactional.delete(tp)
    await Promise.allSettled(gone.map((producer) => producer.disconnect()))
    if (options.idempotent) await this.renewIdempotent(tp)
  }

  /**
   * A new idempotent producer (a new producer id) for the partition: after a produce whose answer was lost, the
   * old one would send its next batch with the sequence the broker already holds, and the broker would answer
   * it as a duplicate without writing it.
   */
  async renewIdempotent(tp: TopicPartition): Promise<void> {
    const producer = this.idempotent.get(tp)
    this.idempotent.delete(tp)
    await producer?.then((p) => p.close()).catch(() => undefined)
  }

  private transactionalIdOf(tp: TopicPartition, sourceProducerId: number): string {
    return `${this.idPrefix}-${tp.topic}-${tp.partition}-${sourceProducerId}`
  }

  private producersOf(tp: TopicPartition): Map<number, TransactionalEntry> {
    let producers = this.transactional.get(tp)
    if (!producers) this.transactional.set(tp, (producers = new Map()))
    return producers
  }

  /** The promise is kept, not the producer: batches started while its channel connects still take their sequences in call order. */
  private idempotentProducer(tp: TopicPartition): Promise<PipelinedProducer> {
    let producer = this.idempotent.get(tp)
    if (!producer) {
      const transactionalId = this.fencedWrites ? `${this.idPrefix}-${tp.topic}-${tp.partition}` : null
      producer = this.channel(`mirror-producer-${tp.partition}`).then((channel) => new PipelinedProducer(channel, tp, transactionalId, this.fencedWrites && this.atomic, this.atomic ? this.statePartition : null))
      // A channel that could not connect is asked for again by the next batch.
      producer.catch(() => {
        if (this.idempotent.get(tp) === producer) this.idempotent.delete(tp)
      })
      this.idempotent.set(tp, producer)
    }
    return producer
  }

  private async transactionOf(tp: TopicPartition, sourceProducerId: number): Promise<Transaction> {
    let entry = this.transactional.get(tp)?.get(sourceProducerId)
    if (!entry) {
      const transactionalId = this.transactionalIdOf(tp, sourceProducerId)
      const producer = this.client(`mirror-txn-${tp.partition}-${sourceProducerId}`).producer({
        transactionalId,
        idempotent: true,
        maxInFlightRequests: 1,
        transactionTimeout: TRANSACTION_TIMEOUT_MS,
        allowAutoTopicCreation: false,
      })
      entry = { producer: await this.connect(producer, `the transactional producer ${transactionalId}`), transaction: null }
      this.producersOf(tp).set(sourceProducerId, entry)
    }
    entry.transaction ??= await entry.producer.transaction()
    return entry.transaction
  }

  /** The type of a control batch (COMMIT, ABORT, MIRROR_PID_RESET, or another control record). */
  static controlType(batch: Uint8Array, header: BatchHeader): string {
    return readControlInfo(batch, header).type
  }

  async close(): Promise<void> {
    const transactional = [...this.transactional.values()].flatMap((producers) => [...producers.values()].map((e) => e.producer))
    const idempotent = [...this.idempotent.values()]
    this.transactional.clear()
    this.idempotent.clear()
    await Promise.allSettled([...transactional.map((p) => p.disconnect()), ...idempotent.map((p) => p.then((producer) => producer.close()))])
  }
}
