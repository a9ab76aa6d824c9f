import 'server-only'
import { TopicPartitionMap, type TopicPartition } from '@/lib/mirror/topic-partition'
import { randomBytes } from 'node:crypto'
import { incrementSequence } from '@/lib/log/record-batch'
import type { RecordInput } from '@/lib/log/types'
import { ClusterError } from '../errors'
import { Mutex } from './mutex'
import type { TransactionCoordinator } from './transaction-coordinator'

/**
 * The client side of producing to the embedded cluster: what a Kafka producer does (partitioning, sequence
 * numbers, AddPartitionsToTxn before the first write to a partition, EndTxn), minus the network.
 */

/** One record as a client hands it over (API.md "Producing"). */
export interface ProduceRecord {
  key?: string | Uint8Array | null
  value: string | Uint8Array | null
  headers?: Array<{ key: string; value: string | Uint8Array | null }>
  timestamp?: number
}

export interface ProduceResult {
  /** One entry per input record, in input order. */
  records: Array<{ partition: number; offset: number }>
}

/** Records of one produce call grouped by target partition (validated; nothing written yet). */
export interface ProducePlan {
  topic: string
  groups: Array<{ partition: number; indices: number[]; records: RecordInput[] }>
  recordCount: number
  /** When an acks=all append of this request times out: its arrival plus `request.timeout.ms`. */
  deadline: number
}

/** Next sequence number per partition of one producer id and epoch (Kafka's producer-side sequence book). */
export class SequenceBook {
  private readonly next = new TopicPartitionMap<number>()

  peek(tp: TopicPartition): number {
    return this.next.get(tp) ?? 0
  }

  advance(tp: TopicPartition, count: number): void {
    this.next.set(tp, incrementSequence(this.peek(tp), count))
  }
}

export interface ProducerSession {
  producerId: number
  producerEpoch: number
  transactional: boolean
  sequences: SequenceBook
}

export interface TransactionalProducerHost {
  readonly transactionCoordinator: TransactionCoordinator
  planProduce(topic: string, options: { partition?: number; records: unknown }): ProducePlan
  appendPlanned(plan: ProducePlan, session: ProducerSession): Promise<ProduceResult>
  forgetTransactionalProducer(handle: string): void
}

const MAX_RECORDS_PER_CALL = 10_000

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array
}

/** Validates what a client sends (every record, before anything is written). */
export function validateRecords(records: unknown): RecordInput[] {
  if (!Array.isArray(records) || records.length === 0) throw new ClusterError('VALIDATION_FAILED', 'records must be a non-empty array')
  if (records.length > MAX_RECORDS_PER_CALL) throw new ClusterError('VALIDATION_FAILED', `at most ${MAX_RECORDS_PER_CALL} records per call`)
  return records.map((raw: unknown, index): RecordInput => {
    const where = `records[${index}]`
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ClusterError('VALIDATION_FAILED', `${where} must be an object`)
    const record = raw as Record<string, unknown>
    const { key, value, headers, timestamp } = record
    if (!('value' in record) || (value !== null && typeof value !== 'string' && !isBytes(value))) {
      throw new ClusterError('VALIDATION_FAILED', `${where}.value must be a string, bytes or null`)
    }
    if (key !== undefined && key !== null && typeof key !== 'string' && !isBytes(key)) {
      throw new ClusterError('VALIDATION_FAILED', `${where}.key must be a string, bytes or null`)
    }
    if (timestamp !== undefined && (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0)) {
      throw new ClusterError('VALIDATION_FAILED', `${where}.timestamp must be a non-negative integer (ms)`)
    }
    let validHeaders: RecordInput['headers']
    if (headers !== undefined) {
      if (!Array.isArray(headers)) throw new ClusterError('VALIDATION_FAILED', `${where}.headers must be an array`)
      validHeaders = headers.map((h: unknown, i) => {
        const header = h as Record<string, unknown> | null
        if (
          header === null ||
          typeof header !== 'object' ||
          typeof header.key !== 'string' ||
          (header.value !== null && typeof header.value !== 'string' && !isBytes(header.value))
        ) {
          throw new ClusterError('VALIDATION_FAILED', `${where}.headers[${i}] must be { key: string, value: string | bytes | null }`)
        }
        return { key: header.key, value: header.value as string | Uint8Array | null }
      })
    }
    const input: RecordInput = { value: value as string | Uint8Array | null }
    if (key !== undefined) input.key = key as string | Uint8Array | null
    if (validHeaders !== undefined) input.headers = validHeaders
    if (timestamp !== undefined) input.timestamp = timestamp as number
    return input
  })
}

/** Kafka-style transactional ids: any printable string. */
export function validateTransactionalId(transactionalId: unknown): string {
  if (typeof transactionalId !== 'string' || transactionalId.length === 0 || transactionalId.length > 255 || /\p{Cc}/u.test(transactionalId)) {
    throw new ClusterError('VALIDATION_FAILED', `invalid transactional id ${JSON.stringify(transactionalId)}`)
  }
  return transactionalId
}

/**
 * A transactional producer (Kafka's KafkaProducer with a transactional.id after initTransactions()).
 * `send` opens a transaction when none is open; `close` walks away and leaves it open, as a crashed producer
 * would — the coordinator aborts it after the transaction timeout. A newer producer with the same
 * transactional id fences this one: every later call fails with INVALID_PRODUCER_EPOCH.
 */
export class TransactionalProducer {
  readonly handle = randomBytes(12).toString('base64url')
  private readonly mutex = new Mutex()
  private closed = false
  private readonly session: ProducerSession

  constructor(
    private readonly host: TransactionalProducerHost,
    readonly transactionalId: string,
    producerId: number,
    producerEpoch: number,
  ) {
    this.session = { producerId, producerEpoch, transactional: true, sequences: new SequenceBook() }
  }

  get producerId(): number {
    return this.session.producerId
  }

  get producerEpoch(): number {
    return this.session.producerEpoch
  }

  get isClosed(): boolean {
    return this.closed
  }

  private checkOpen(): void {
    if (this.closed) throw new ClusterError('NOT_FOUND', `transactional producer ${this.handle} (${this.transactionalId}) is closed`)
  }

  send(topic: string, options: { partition?: number; records: unknown }): Promise<ProduceResult> {
    return this.mutex.run(async () => {
      this.checkOpen()
      const plan = this.host.planProduce(topic, options)
      await this.host.transactionCoordinator.addPartitions(
        this.transactionalId,
        this.producerId,
        this.producerEpoch,
        plan.groups.map((g) => ({ topic: plan.topic, partition: g.partition })),
      )
      return this.host.appendPlanned(plan, this.session)
    })
  }

  commit(): Promise<{ markersWritten: boolean }> {
    return this.end('COMMIT')
  }

  abort(): Promise<{ markersWritten: boolean }> {
    return this.end('ABORT')
  }

  private end(result: 'COMMIT' | 'ABORT'): Promise<{ markersWritten: boolean }> {
    return this.mutex.run(async () => {
      this.checkOpen()
      return this.host.transactionCoordinator.endTransaction(this.transactionalId, this.producerId, this.producerEpoch, result)
    })
  }

  /** Drops the handle without ending its transaction (a crash, as far as the cluster can tell). */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.host.forgetTransactionalProducer(this.handle)
  }
}
