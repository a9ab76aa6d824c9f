import 'server-only'
import { ClusterError, isClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import { isInteger, type ClusterDirectory } from './cluster-directory'
import { partitionForKey } from './partitioner'
import type { ProducerIdManager } from './producer-ids'
import {
  SequenceBook,
  TransactionalProducer,
  validateRecords,
  validateTransactionalId,
  type ProducePlan,
  type ProduceRecord,
  type ProduceResult,
  type ProducerSession,
} from './producers'
import type { Topics } from './topics'
import type { TransactionCoordinator } from './transaction-coordinator'

export type Acks = 'all' | 'leader'

export interface ProduceOptions {
  partition?: number
  /** Default true: records carry the cluster client's producer id and sequence numbers. */
  idempotent?: boolean
  records: ProduceRecord[]
  /** Default 'all': resolve once the high watermark covers the records. */
  acks?: Acks
}

/** A Produce request as a client library would send it: one batch with the producer fields given as they are. */
export interface ProduceBatchOptions {
  records: ProduceRecord[]
  producerId?: number
  producerEpoch?: number
  baseSequence?: number
  transactional?: boolean
  acks?: Acks
}

function validateAcks(acks: unknown): Acks {
  if (acks === undefined) return 'all'
  if (acks !== 'all' && acks !== 'leader') throw new ClusterError('VALIDATION_FAILED', `acks must be "all" or "leader"`)
  return acks
}

/**
 * The produce path: partitioning, the cluster client's idempotent session, raw Produce requests,
 * transactional producers and the markers their coordinator writes.
 */
export class ProducePath {
  private readonly roundRobin = new Map<string, number>()
  private readonly transactionalProducers = new Map<string, TransactionalProducer>()
  private idempotentSession: Promise<ProducerSession> | null = null

  constructor(
    private readonly directory: ClusterDirectory,
    private readonly topics: Topics,
    private readonly producerIds: () => ProducerIdManager,
    private readonly coordinator: () => TransactionCoordinator,
  ) {}

  forgetTopic(topic: string): void {
    this.roundRobin.delete(topic)
  }

  closeProducers(): void {
    for (const producer of [...this.transactionalProducers.values()]) producer.close()
  }

  /** Partitions the records of one produce call (explicit partition, key hash, or round-robin), validating all. */
  private planProduce(topicName: string, options: { partition?: number; records: unknown }): ProducePlan {
    const { directory } = this
    directory.ensureReachable()
    const topic = directory.requireTopic(topicName)
    this.topics.checkClientWritable(topic)
    const records = validateRecords(options?.records)
    if (options.partition !== undefined) directory.requirePartition({ topic: topicName, partition: options.partition })
    const count = topic.partitions.length
    const groups = new Map<number, { partition: number; indices: number[]; records: typeof records }>()
    records.forEach((record, index) => {
      let partition = options.partition
      if (partition === undefined) {
        if (record.key !== undefined && record.key !== null) {
          partition = partitionForKey(typeof record.key === 'string' ? new TextEncoder().encode(record.key) : record.key, count)
        } else {
          const next = this.roundRobin.get(topicName) ?? 0
          this.roundRobin.set(topicName, next + 1)
          partition = next % count
        }
      }
      let group = groups.get(partition)
      if (!group) {
        group = { partition, indices: [], records: [] }
        groups.set(partition, group)
      }
      group.indices.push(index)
      group.records.push(record)
    })
    return { topic: topicName, groups: [...groups.values()], recordCount: records.length, deadline: directory.clock.now() + directory.config.requestTimeoutMs }
  }

  /** Appends a plan, one batch per partition, each with the session's next sequence for that partition. */
  private async appendPlanned(plan: ProducePlan, session: ProducerSession | null, acks: Acks = 'all'): Promise<ProduceResult> {
    const offsets: Array<{ partition: number; offset: number }> = new Array(plan.recordCount)
    await Promise.all(
      plan.groups.map(async (group) => {
        const baseOffset = await this.appendGroup({ topic: plan.topic, partition: group.partition }, group.records, session, acks, plan.deadline)
        group.indices.forEach((index, i) => {
          offsets[index] = { partition: group.partition, offset: baseOffset + i }
        })
      }),
    )
    return { records: offsets }
  }

  /**
   * One batch to one partition, as Kafka's idempotent producer sends it:
   * - leadership moved before the batch was committed → resend once with the same sequence: the new leader
   *   recognises it if it already holds it, so the retry neither loses nor duplicates records;
   * - the cluster's shared idempotent session is out of step with the partition (its earlier batches were lost
   *   to an unclean election) → start a new session (new producer id, sequence 0) and resend once, as Kafka's
   *   producer resets its epoch and sequences (KIP-360).
   */
  private async appendGroup(tp: TopicPartition, records: ReturnType<typeof validateRecords>, session: ProducerSession | null, acks: Acks, deadline: number): Promise<number> {
    const partition = this.directory.requirePartition(tp)
    let current = session
    let baseSequence: number | undefined
    for (let attempt = 0; ; attempt++) {
      let append
      try {
        append = await partition.appendOnLeader(acks, async (log, leaderEpoch) => {
          if (!current) return log.appendAsLeader(records, { leaderEpoch })
          const first = baseSequence === undefined
          baseSequence ??= current.sequences.peek(tp)
          const result = await log.appendAsLeader(records, {
            leaderEpoch,
            producerId: current.producerId,
            producerEpoch: current.producerEpoch,
            baseSequence,
            transactional: current.transactional,
          })
          if (first) current.sequences.advance(tp, records.length)
          return result
        })
      } catch (error) {
        if (attempt === 0 && current && !current.transactional && isClusterError(error, 'OUT_OF_ORDER_SEQUENCE')) {
          current = await this.resetIdempotentSession(current)
          baseSequence = undefined
          continue
        }
        throw error
      }
      if (acks === 'leader') return append.result.baseOffset
      try {
        await partition.awaitCommitted(append, deadline)
        return append.result.baseOffset
      } catch (error) {
        if (current && attempt === 0 && isClusterError(error, 'NOT_LEADER_OR_FOLLOWER')) continue
        throw error
      }
    }
  }

  private async resetIdempotentSession(stale: ProducerSession): Promise<ProducerSession> {
    const current = this.idempotentSession ? await this.idempotentSession : null
    if (current && current !== stale) return current
    this.idempotentSession = null
    return this.sharedIdempotentSession()
  }

  private sharedIdempotentSession(): Promise<ProducerSession> {
    this.idempotentSession ??= this.producerIds()
      .allocate()
      .then(
        (producerId) => ({ producerId, producerEpoch: 0, transactional: false, sequences: new SequenceBook() }),
        (error: unknown) => {
          this.idempotentSession = null
          throw error
        },
      )
    return this.idempotentSession
  }

  /**
   * Client produce (API.md "Producing"): idempotent by default with one producer id per cluster session;
   * `idempotent: false` writes without a producer id. Refused with TOPIC_READ_ONLY on a mirror topic.
   */
  async produce(topic: string, options: ProduceOptions): Promise<ProduceResult> {
    const plan = this.planProduce(topic, options)
    const acks = validateAcks(options.acks)
    const session = options.idempotent === false ? null : await this.sharedIdempotentSession()
    return this.appendPlanned(plan, session, acks)
  }

  /**
   * A raw Produce request: one batch with exactly the producer id, epoch and base sequence given, validated by
   * the partition leader as Kafka does (duplicates return the original offsets; gaps → OUT_OF_ORDER_SEQUENCE;
   * an older epoch → INVALID_PRODUCER_EPOCH). For tests and tools that play a producer themselves.
   */
  async produceBatch(tp: TopicPartition, options: ProduceBatchOptions): Promise<{ baseOffset: number; lastOffset: number; duplicate: boolean }> {
    const { directory } = this
    directory.ensureReachable()
    const topic = directory.requireTopic(tp.topic)
    this.topics.checkClientWritable(topic)
    const partition = directory.requirePartition(tp)
    const records = validateRecords(options?.records)
    const acks = validateAcks(options.acks)
    const { producerId, producerEpoch, baseSequence, transactional } = options
    if (producerId !== undefined && producerId !== -1) {
      if (!isInteger(producerId, 0) || !isInteger(producerEpoch, 0) || producerEpoch > 32_767 || !isInteger(baseSequence, 0)) {
        throw new ClusterError('VALIDATION_FAILED', 'a batch with a producer id needs a producerEpoch (0..32767) and a non-negative baseSequence')
      }
    } else if (transactional) {
      throw new ClusterError('VALIDATION_FAILED', 'a transactional batch needs a producer id')
    }
    const deadline = partition.requestDeadline()
    const append = await partition.appendOnLeader(acks, (log, leaderEpoch) => {
      if (producerId === undefined || producerId === -1) return log.appendAsLeader(records, { leaderEpoch })
      return log.appendAsLeader(records, { leaderEpoch, producerId, producerEpoch: producerEpoch!, baseSequence: baseSequence!, transactional: transactional ?? false })
    })
    if (acks === 'all') await partition.awaitCommitted(append, deadline)
    return append.result
  }

  /** Kafka's initTransactions(): a handle with a fresh producer epoch; fences older producers of the same id. */
  async createTransactionalProducer(transactionalId: string, options: { transactionTimeoutMs?: number } = {}): Promise<TransactionalProducer> {
    this.directory.ensureReachable()
    validateTransactionalId(transactionalId)
    const coordinator = this.coordinator()
    const { producerId, producerEpoch } = await coordinator.initProducerId(transactionalId, options)
    const producer = new TransactionalProducer(
      {
        transactionCoordinator: coordinator,
        planProduce: (topic, o) => this.planProduce(topic, o),
        appendPlanned: (plan, session) => this.appendPlanned(plan, session, 'all'),
        forgetTransactionalProducer: (handle) => this.transactionalProducers.delete(handle),
      },
      transactionalId,
      producerId,
      producerEpoch,
    )
    this.transactionalProducers.set(producer.handle, producer)
    return producer
  }

  /** The open handle with this id (API: `/producers/{handle}`). */
  transactionalProducer(handle: string): TransactionalProducer {
    const producer = this.transactionalProducers.get(handle)
    if (!producer) throw new ClusterError('NOT_FOUND', `no transactional producer ${JSON.stringify(handle)} in ${this.directory.name}`)
    return producer
  }

  /**
   * Kafka WriteTxnMarkers for one partition, acks=all. A partition that became a mirror destination after the
   * transaction began (the old source after a failback) takes its history from the mirror only: the marker is
   * not written there, and the transaction ends as if it had been (the mirrored log already decided it).
   */
  async writeTxnMarker(tp: TopicPartition, type: 'COMMIT' | 'ABORT', producerId: number, producerEpoch: number): Promise<void> {
    this.directory.ensureOpen()
    if (this.directory.requireTopic(tp.topic).readOnly) return
    const partition = this.directory.requirePartition(tp)
    const deadline = partition.requestDeadline()
    const append = await partition.appendControl(type, { producerId, producerEpoch })
    await partition.awaitCommitted(append, deadline)
  }
}
