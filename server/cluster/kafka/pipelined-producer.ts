import 'server-only'
import { createRequire } from 'node:module'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import type { BrokerChannel } from './connection'
import { encodeBatch } from '@/lib/log/record-batch'
import { crc32c } from '@/server/storage/crc32c'
import { errorName, produceRequest, type BatchBytes, type ProtocolRequest } from './protocol'
import { isProducerFenced } from './unit-transactions'

/**
 * An idempotent producer of one partition with several produces in flight, as Kafka's Java producer keeps
 * them (max.in.flight.requests.per.connection ≤ 5 with idempotence). kafkajs's own idempotent producer
 * holds a lock per broker across each request and its answer (one in flight, whatever maxInFlightRequests
 * says), so this one sends its own Produce v7 (protocol.ts) and kafkajs's InitProducerId request, over a
 * channel of its own.
 *
 * Why it keeps order and never writes twice: the broker accepts a batch of this producer id only if its first
 * sequence follows the last one it wrote (OUT_OF_ORDER_SEQUENCE_NUMBER otherwise) and answers a batch it
 * already holds, among the producer's last five, with the offsets it has (no second copy). So whatever
 * happens to the requests — a lost answer, a connection dropped and requests sent again in another order —
 * the log holds a gapless prefix of the batches in the order `send` was called. The caller takes the answers
 * in that order and stops at the first failure, once every request still in flight has settled. Then, as
 * kafkajs's producer does after a failed send, the next batch takes the failed one's sequence again
 * (`resumeAt`): sent again, a batch the broker did write after all (an answer lost, a request that timed out
 * here but was still queued there) is answered with its offsets instead of being written twice. A refusal of
 * the producer's state itself (sequence, id, epoch) discards the producer instead; what it left on the broker
 * is found by unacknowledged-produce.ts, and a new producer id starts at sequence 0.
 */

/** The broker remembers the last five batches of each producer (ProducerStateEntry.NUM_BATCHES_TO_RETAIN). */
export const MAX_IN_FLIGHT = 5
const INIT_PRODUCER_ID_VERSION = 1
const PRODUCE_TIMEOUT_MS = 30_000
/** Sequences are int32 and wrap to 0 (DefaultRecordBatch.incrementSequence). */
const SEQUENCE_MODULUS = 2 ** 31

interface InitProducerIdAnswer {
  producerId: string
  producerEpoch: number
}

/** What a batch is written with: the broker checks the sequence per producer id and epoch. */
export interface ProducerStamp {
  producerId: number
  producerEpoch: number
  baseSequence: number
  /** A batch of our own transaction (an atomic append): the transactional bit set. */
  isTransactional?: boolean
}

const requireKafkajs = createRequire(import.meta.url)
const initProducerIdRequest = (
  requireKafkajs('kafkajs/src/protocol/requests/initProducerId') as {
    protocol(options: { version: number }): (args: { transactionalId: string | null; transactionTimeout?: number }) => ProtocolRequest<InitProducerIdAnswer>
  }
).protocol({ version: INIT_PRODUCER_ID_VERSION })
/** Outside atomic appends never used for a transaction; with them, how long a dead writer's open one blocks readers. */
const FENCING_TRANSACTION_TIMEOUT_MS = 60_000
const addPartitionsToTxnRequest = (
  requireKafkajs('kafkajs/src/protocol/requests/addPartitionsToTxn') as {
    protocol(options: { version: number }): (args: { transactionalId: string; producerId: string; producerEpoch: number; topics: Array<{ topic: string; partitions: number[] }> }) => ProtocolRequest<unknown>
  }
).protocol({ version: 1 })
const endTxnRequest = (
  requireKafkajs('kafkajs/src/protocol/requests/endTxn') as {
    protocol(options: { version: number }): (args: { transactionalId: string; producerId: string; producerEpoch: number; transactionResult: boolean }) => ProtocolRequest<unknown>
  }
).protocol({ version: 1 })
/** The coordinator answers CONCURRENT_TRANSACTIONS while the previous transaction's markers are being written. */
const COORDINATOR_RETRY_MS = 15_000
const RETRIED_COORDINATOR_ERRORS = new Set(['CONCURRENT_TRANSACTIONS', 'COORDINATOR_LOAD_IN_PROGRESS'])
const MOVED_COORDINATOR_ERRORS = new Set(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE'])

/** Kafka's name of the error a request was refused with (kafkajs's `type`, kept as a cause). */
function refusalType(error: unknown): string {
  for (let cause: unknown = error, depth = 0; cause !== null && typeof cause === 'object' && depth < 5; depth++) {
    const { type } = cause as { type?: unknown }
    if (typeof type === 'string') return type
    const next = cause as { cause?: unknown; originalError?: unknown }
    cause = next.originalError ?? next.cause
  }
  return ''
}

export class PipelinedProducer {
  private identity: Promise<InitProducerIdAnswer> | null = null
  private nextSequence = 0
  /** Atomic appends: the data partition added to the open transaction (AddPartitionsToTxn), shared by its batches. */
  private transaction: Promise<void> | null = null
  /** Atomic appends: the state record's partition, added once the transaction is committed; its own sequence. */
  private stateAdded = false
  private stateSequence = 0
  private coordinator: Promise<number> | null = null

  constructor(
    private readonly channel: BrokerChannel,
    private readonly tp: TopicPartition,
    /**
     * With one, the producer id is the one Kafka keeps for this transactional id (issue #40: it names the mirror
     * partition, the unit of work): the next writer's InitProducerId bumps its epoch, and once that writer has
     * produced, the partition's leader refuses this one's batches (INVALID_PRODUCER_EPOCH). The batches still go
     * outside transactions, exactly as without. Without one, a producer id of its own (idempotence only).
     */
    private readonly transactionalId: string | null = null,
    /**
     * Atomic appends (issue #40, needs a transactional id): the batches go in a transaction of that id, committed
     * together with the emulation's state record of them (`commit`), as Kafka Connect commits a source task's records
     * and offsets; an InitProducerId of the next writer aborts an open one, so neither lands without the other.
     */
    private readonly atomic = false,
    /** Atomic appends: the state record's partition, added with the data partition in one AddPartitionsToTxn. */
    private readonly statePartition: TopicPartition | null = null,
  ) {}

  /**
   * The producer id, asked of the partition's leader (or, for a transactional id, its coordinator): that also opens
   * and authenticates the socket every produce then takes, so produces sent one after the other reach it in that order.
   */
  private identityAt(leader: number): Promise<InitProducerIdAnswer> {
    const { transactionalId } = this
    this.identity ??= (
      transactionalId === null
        ? this.channel.send(leader, initProducerIdRequest({ transactionalId: null }))
        : this.initialise(transactionalId)
    ).catch((error: unknown) => {
      this.identity = null
      throw error
    })
    return this.identity
  }

  /** InitProducerId for the id, sent again while the coordinator aborts (or completes) the previous writer's transaction. */
  private async initialise(transactionalId: string): Promise<InitProducerIdAnswer> {
    const deadline = Date.now() + COORDINATOR_RETRY_MS
    for (;;) {
      try {
        this.coordinator ??= this.channel.transactionCoordinator(transactionalId)
        return await this.channel.send(await this.coordinator, initProducerIdRequest({ transactionalId, transactionTimeout: FENCING_TRANSACTION_TIMEOUT_MS }))
      } catch (error) {
        const type = refusalType(error)
        if (MOVED_COORDINATOR_ERRORS.has(type)) this.coordinator = null
        else if (!RETRIED_COORDINATOR_ERRORS.has(type)) throw error
        if (Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }
  }

  /** The first sequence the next `send` takes. */
  get sequence(): number {
    return this.nextSequence
  }

  /**
   * Sends one batch of `recordCount` records (acks=all), its bytes made by `batchWith` once the producer id is
   * known, and resolves with the offset the broker put its first record at. The sequence is taken when called
   * (`sequence` tells it beforehand), so batches are ordered by the calls, not by when their requests leave.
   */
  async send(leader: number, recordCount: number, batchWith: (stamp: ProducerStamp) => BatchBytes): Promise<number> {
    const baseSequence = this.nextSequence
    this.nextSequence = (baseSequence + recordCount) % SEQUENCE_MODULUS
    const identity = await this.identityAt(leader)
    const { producerId, producerEpoch } = identity
    // Taken in call order: every batch waits for the one AddPartitionsToTxn of its transaction (`begin` may have sent it).
    if (this.atomic) await this.openTransaction(identity)
    const what = `produce to ${this.tp.topic}-${this.tp.partition}`
    const answers = await this.channel.send(leader, produceRequest(this.tp, batchWith({ producerId: Number(producerId), producerEpoch, baseSequence, isTransactional: this.atomic }), PRODUCE_TIMEOUT_MS, this.atomic ? this.transactionalId : null))
    const answer = answers.find((a) => a.topic === this.tp.topic && a.partition === this.tp.partition)
    if (!answer) throw new ClusterError('SOURCE_UNAVAILABLE', `${what}: the broker's answer does not name the partition`)
    if (answer.errorCode !== 0) throw produceRefused(errorName(answer.errorCode), what)
    return answer.baseOffset
  }

  /**
   * Takes the transactional id (InitProducerId) if this producer has not yet: the previous writer's open transaction is
   * aborted (or, when it was already committing, completed) before this answers, and its later writes are refused.
   */
  async claim(): Promise<{ producerId: number; producerEpoch: number }> {
    const { producerId, producerEpoch } = await this.identityAt(-1)
    return { producerId: Number(producerId), producerEpoch }
  }

  /**
   * Atomic appends: opens the transaction (AddPartitionsToTxn of the data partition and the state partition) unless it
   * is open; the state partition goes in the same request: added, it holds back no reader until the record is written
   * at the end. Once the data partition is added, the commit writes a COMMIT marker there, data or not.
   */
  private openTransaction(identity: InitProducerIdAnswer): Promise<void> {
    this.transaction ??= this.addPartitions(identity, this.tp, this.statePartition).then(() => void (this.stateAdded = this.statePartition !== null))
    return this.transaction
  }

  /**
   * Atomic appends, with the id claimed: opens the next transaction before its first batch is ready (the coordinator
   * answers once the last transaction's markers are written, so this overlaps the wait for them). Its refusal is met by
   * the batches and the commit that wait for it.
   */
  begin(): void {
    if (!this.atomic || this.identity === null) return
    void this.identity.then((identity) => this.openTransaction(identity)).catch(() => undefined)
  }

  /** Whether the open transaction holds batches of the data partition (its COMMIT marker then takes an offset there). */
  get holdsData(): boolean {
    return this.transaction !== null
  }

  /**
   * Atomic appends: writes `records` (the emulation's state of the partition) to `state` in the open transaction, or
   * in one of their own when none is open, and commits it; with nothing of ours in flight. Resolves once the
   * coordinator accepted the commit (its markers follow: the caller waits for the data partition's).
   */
  async commit(state: TopicPartition, stateLeader: number, records: Array<{ key: string; value: string | null }>): Promise<void> {
    const identity = await this.identityAt(-1)
    if (this.transaction) await this.transaction
    if (!this.stateAdded) await this.addPartitions(identity, state)
    this.stateAdded = true
    const baseSequence = this.stateSequence
    this.stateSequence = (baseSequence + records.length) % SEQUENCE_MODULUS
    const what = `write the state of ${this.tp.topic}-${this.tp.partition} to ${state.topic}`
    const batch = encodeBatch({ baseOffset: 0, partitionLeaderEpoch: -1, producerId: Number(identity.producerId), producerEpoch: identity.producerEpoch, baseSequence, isTransactional: true, timestamp: Date.now(), records }, crc32c)
    const answers = await this.channel.send(stateLeader, produceRequest(state, batch, PRODUCE_TIMEOUT_MS, this.transactionalId))
    const answer = answers.find((a) => a.topic === state.topic && a.partition === state.partition)
    if (!answer) throw new ClusterError('SOURCE_UNAVAILABLE', `${what}: the broker's answer does not name the partition`)
    if (answer.errorCode !== 0) throw produceRefused(errorName(answer.errorCode), what)
    await this.endTransaction(identity, true)
  }

  /** Atomic appends: aborts the open transaction, if any (its batches are then never read read_committed). */
  async abort(): Promise<void> {
    if (!this.transaction && !this.stateAdded) return
    const identity = await this.identityAt(-1)
    await this.transaction?.catch(() => undefined)
    await this.endTransaction(identity, false)
  }

  private async endTransaction(identity: InitProducerIdAnswer, commit: boolean): Promise<void> {
    const transactionalId = this.transactionalId!
    await this.toCoordinator(`${commit ? 'commit' : 'abort'} the transaction of ${transactionalId}`, () => endTxnRequest({ transactionalId, ...identity, transactionResult: commit }))
    this.transaction = null
    this.stateAdded = false
  }

  private addPartitions(identity: InitProducerIdAnswer, tp: TopicPartition, also: TopicPartition | null = null): Promise<void> {
    const transactionalId = this.transactionalId!
    const topics = [tp, ...(also && (also.topic !== tp.topic || also.partition !== tp.partition) ? [also] : [])].map((p) => ({ topic: p.topic, partitions: [p.partition] }))
    return this.toCoordinator(`add ${tp.topic}-${tp.partition} to the transaction of ${transactionalId}`, () => addPartitionsToTxnRequest({ transactionalId, ...identity, topics }))
  }

  /** A request to the id's transaction coordinator, sent again while it finishes the previous transaction or moved. */
  private async toCoordinator(what: string, request: () => ProtocolRequest<unknown>): Promise<void> {
    const transactionalId = this.transactionalId!
    const deadline = Date.now() + COORDINATOR_RETRY_MS
    for (;;) {
      try {
        this.coordinator ??= this.channel.transactionCoordinator(transactionalId)
        await this.channel.send(await this.coordinator, request())
        return
      } catch (error) {
        if (isProducerFenced(error)) throw new ClusterError('INVALID_PRODUCER_EPOCH', `${what}: fenced: another writer of this partition initialised ${transactionalId} after this one`, { cause: { type: 'INVALID_PRODUCER_EPOCH' } })
        const type = refusalType(error)
        if (MOVED_COORDINATOR_ERRORS.has(type)) this.coordinator = null
        else if (!RETRIED_COORDINATOR_ERRORS.has(type)) throw error
        if (Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }
  }

  /** After a failed produce, with nothing of this producer in flight: the next batch reuses `sequence`. */
  resumeAt(sequence: number): void {
    this.nextSequence = sequence
  }

  async close(): Promise<void> {
    await this.channel.close()
  }
}

/** A partition's error in a produce answer; the cause carries Kafka's name as `type`, as kafkajs's errors do. */
function produceRefused(type: string, what: string): ClusterError {
  if (type === 'INVALID_PRODUCER_EPOCH' || type === 'PRODUCER_FENCED') {
    return new ClusterError('INVALID_PRODUCER_EPOCH', `${what}: fenced (${type}): another writer of this partition initialised the same transactional id after this one`, { cause: { type } })
  }
  const code = type === 'NOT_LEADER_OR_FOLLOWER' ? 'NOT_LEADER_OR_FOLLOWER' : type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE' ? 'RECORD_TOO_LARGE' : 'SOURCE_UNAVAILABLE'
  return new ClusterError(code, `${what}: the broker answered ${type}`, { cause: { type } })
}
