import 'server-only'
import { createRequire } from 'node:module'
import type { Message } from 'kafkajs'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import type { BrokerChannel } from './connection'
import type { ProtocolRequest } from './protocol'

/**
 * An idempotent producer of one partition with several produces in flight, as Kafka's Java producer keeps
 * them (max.in.flight.requests.per.connection ≤ 5 with idempotence). kafkajs's own idempotent producer
 * holds a lock per broker across each request and its answer (one in flight, whatever maxInFlightRequests
 * says), so this one sends kafkajs's Produce v7 and InitProducerId requests itself, over a channel of its own.
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
const PRODUCE_VERSION = 7
const INIT_PRODUCER_ID_VERSION = 1
const PRODUCE_TIMEOUT_MS = 30_000
/** Sequences are int32 and wrap to 0 (DefaultRecordBatch.incrementSequence). */
const SEQUENCE_MODULUS = 2 ** 31

interface ProduceAnswer {
  topics: Array<{ topicName: string; partitions: Array<{ partition: number; errorCode: number; baseOffset: string }> }>
}
interface InitProducerIdAnswer {
  producerId: string
  producerEpoch: number
}
interface ProduceArguments {
  acks: number
  timeout: number
  producerId: string
  producerEpoch: number
  topicData: Array<{ topic: string; partitions: Array<{ partition: number; firstSequence: number; messages: Message[] }> }>
}
interface KafkajsRequests<A, T> {
  protocol(options: { version: number }): (args: A) => ProtocolRequest<T>
}

const requireKafkajs = createRequire(import.meta.url)
const produceRequest = (requireKafkajs('kafkajs/src/protocol/requests/produce') as KafkajsRequests<ProduceArguments, ProduceAnswer>).protocol({ version: PRODUCE_VERSION })
const initProducerIdRequest = (requireKafkajs('kafkajs/src/protocol/requests/initProducerId') as KafkajsRequests<{ transactionalId: null }, InitProducerIdAnswer>).protocol({
  version: INIT_PRODUCER_ID_VERSION,
})

export class PipelinedProducer {
  private identity: Promise<InitProducerIdAnswer> | null = null
  private nextSequence = 0

  constructor(
    private readonly channel: BrokerChannel,
    private readonly tp: TopicPartition,
  ) {}

  /**
   * The producer id, asked of the partition's leader: that also opens and authenticates the socket every
   * produce then takes, so produces sent one after the other reach it in that order.
   */
  private identityAt(leader: number): Promise<InitProducerIdAnswer> {
    this.identity ??= this.channel.send(leader, initProducerIdRequest({ transactionalId: null })).catch((error: unknown) => {
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
   * Sends one batch of `messages` (acks=all) and resolves with the offset the broker put its first record at.
   * The sequence is taken when called (`sequence` tells it beforehand), so batches are ordered by the calls,
   * not by when their requests leave.
   */
  async send(leader: number, messages: Message[]): Promise<number> {
    const firstSequence = this.nextSequence
    this.nextSequence = (firstSequence + messages.length) % SEQUENCE_MODULUS
    const { producerId, producerEpoch } = await this.identityAt(leader)
    const answer = await this.channel.send(
      leader,
      produceRequest({
        acks: -1,
        timeout: PRODUCE_TIMEOUT_MS,
        producerId,
        producerEpoch,
        topicData: [{ topic: this.tp.topic, partitions: [{ partition: this.tp.partition, firstSequence, messages }] }],
      }),
    )
    // kafkajs's answer parser throws on a partition's error code: what is left is an acknowledgement.
    const partition = answer.topics.find((t) => t.topicName === this.tp.topic)?.partitions.find((p) => p.partition === this.tp.partition)
    if (!partition) throw new ClusterError('SOURCE_UNAVAILABLE', `produce to ${this.tp.topic}-${this.tp.partition}: the broker's answer does not name the partition`)
    return Number(partition.baseOffset)
  }

  /** After a failed produce, with nothing of this producer in flight: the next batch reuses `sequence`. */
  resumeAt(sequence: number): void {
    this.nextSequence = sequence
  }

  async close(): Promise<void> {
    await this.channel.close()
  }
}
