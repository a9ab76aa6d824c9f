import 'server-only'
import { createRequire } from 'node:module'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import type { BrokerChannel } from './connection'
import { errorName, produceRequest, type BatchBytes, type ProtocolRequest } from './protocol'

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
}

const requireKafkajs = createRequire(import.meta.url)
const initProducerIdRequest = (
  requireKafkajs('kafkajs/src/protocol/requests/initProducerId') as {
    protocol(options: { version: number }): (args: { transactionalId: string | null; transactionTimeout?: number }) => ProtocolRequest<InitProducerIdAnswer>
  }
).protocol({ version: INIT_PRODUCER_ID_VERSION })
/** Never used for a transaction (the batches stay outside any): only required by InitProducerId with an id. */
const FENCING_TRANSACTION_TIMEOUT_MS = 60_000

export class PipelinedProducer {
  private identity: Promise<InitProducerIdAnswer> | null = null
  private nextSequence = 0

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
        : this.channel.transactionCoordinator(transactionalId).then((coordinator) => this.channel.send(coordinator, initProducerIdRequest({ transactionalId, transactionTimeout: FENCING_TRANSACTION_TIMEOUT_MS })))
    ).catch((error: unknown) => {
      this.identity = null
      throw error
    })
    return this.identity
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
    const { producerId, producerEpoch } = await this.identityAt(leader)
    const what = `produce to ${this.tp.topic}-${this.tp.partition}`
    const answers = await this.channel.send(leader, produceRequest(this.tp, batchWith({ producerId: Number(producerId), producerEpoch, baseSequence }), PRODUCE_TIMEOUT_MS))
    const answer = answers.find((a) => a.topic === this.tp.topic && a.partition === this.tp.partition)
    if (!answer) throw new ClusterError('SOURCE_UNAVAILABLE', `${what}: the broker's answer does not name the partition`)
    if (answer.errorCode !== 0) throw produceRefused(errorName(answer.errorCode), what)
    return answer.baseOffset
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
