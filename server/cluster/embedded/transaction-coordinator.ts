import 'server-only'
import { z } from 'zod'
import type { TopicPartition } from '../ports'
import { ClusterError, isRetriableClusterError } from '../errors'
import type { Clock } from './clock'
import { DurableJsonFile, readJsonIfExists } from './durable-json'
import { Mutex } from './mutex'

/**
 * The cluster's transaction coordinator (Kafka's TransactionCoordinator with its `__transaction_state`
 * replaced by one durable JSON document). States, as in Kafka:
 *
 *   Empty ──send──▶ Ongoing ──commit──▶ PrepareCommit ──markers written──▶ CompleteCommit ──send──▶ Ongoing …
 *                      └──abort / timeout / fencing──▶ PrepareAbort ──markers written──▶ CompleteAbort
 *
 * Every state change is durable before its effect (a partition is recorded before the producer writes to it,
 * a decision before its markers), so a restart can still finish or abort what was under way.
 */

export type TransactionState = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort'

const TopicPartitionSchema = z.object({ topic: z.string(), partition: z.number().int().nonnegative() })

const TransactionMetadataSchema = z.object({
  transactionalId: z.string(),
  producerId: z.number().int().nonnegative(),
  producerEpoch: z.number().int().nonnegative(),
  state: z.enum(['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort']),
  /** Partitions of the current transaction; for Prepare* states, those whose marker is not written yet. */
  partitions: z.array(TopicPartitionSchema),
  transactionTimeoutMs: z.number().int().positive(),
  /** When the current transaction started (first partition added), -1 outside a transaction. */
  txnStartTimestamp: z.number(),
  lastUpdateTimestamp: z.number(),
})

const TransactionLogSchema = z.object({ version: z.literal(1), transactions: z.array(TransactionMetadataSchema) })

export type TransactionMetadata = z.infer<typeof TransactionMetadataSchema>

/** What the coordinator needs from the cluster: producer ids, and markers written with acks=all. */
export interface TransactionCoordinatorHost {
  readonly clock: Clock
  allocateProducerId(): Promise<number>
  writeTxnMarker(topicPartition: TopicPartition, type: 'COMMIT' | 'ABORT', producerId: number, producerEpoch: number): Promise<void>
}

/** Kafka producer epochs are int16; the last value is reserved so that a fencing bump always fits. */
const MAX_PRODUCER_EPOCH = 32_766

export interface EndTransactionResult {
  /** False when some markers could not be written yet (leader unavailable); they are retried on tick. */
  markersWritten: boolean
}

/** Read through a function: the state changes inside awaited calls, which TypeScript's narrowing cannot see. */
function stateOf(txn: TransactionMetadata): TransactionState {
  return txn.state
}

function hasPendingMarkers(txn: TransactionMetadata): boolean {
  const state = stateOf(txn)
  return state === 'PrepareCommit' || state === 'PrepareAbort'
}

function samePartition(a: TopicPartition, b: TopicPartition): boolean {
  return a.topic === b.topic && a.partition === b.partition
}

export class TransactionCoordinator {
  private readonly transactions = new Map<string, TransactionMetadata>()
  private readonly locks = new Map<string, Mutex>()
  private readonly file: DurableJsonFile

  private constructor(
    path: string,
    private readonly host: TransactionCoordinatorHost,
    private readonly defaultTimeoutMs: number,
  ) {
    this.file = new DurableJsonFile(path, () => ({ version: 1, transactions: [...this.transactions.values()] }))
  }

  static async open(path: string, host: TransactionCoordinatorHost, options: { transactionTimeoutMs: number }): Promise<TransactionCoordinator> {
    const coordinator = new TransactionCoordinator(path, host, options.transactionTimeoutMs)
    const raw = await readJsonIfExists(path)
    if (raw !== undefined) {
      for (const txn of TransactionLogSchema.parse(raw).transactions) coordinator.transactions.set(txn.transactionalId, txn)
    }
    return coordinator
  }

  private lockFor(transactionalId: string): Mutex {
    let lock = this.locks.get(transactionalId)
    if (!lock) {
      lock = new Mutex()
      this.locks.set(transactionalId, lock)
    }
    return lock
  }

  describe(transactionalId: string): TransactionMetadata | undefined {
    const txn = this.transactions.get(transactionalId)
    return txn && structuredClone(txn)
  }

  list(): TransactionMetadata[] {
    return [...this.transactions.values()].map((t) => structuredClone(t))
  }

  /**
   * Kafka InitProducerId for a transactional id: a new id starts at epoch 0; a known one is bumped, which
   * fences the previous producer. A transaction it left open is aborted first, its markers carrying the bumped
   * epoch (so the old producer's late writes are refused by the partitions), and the new producer gets the
   * epoch after that, as Kafka's client does after its CONCURRENT_TRANSACTIONS retry.
   */
  initProducerId(transactionalId: string, options: { transactionTimeoutMs?: number } = {}): Promise<{ producerId: number; producerEpoch: number }> {
    const timeoutMs = options.transactionTimeoutMs ?? this.defaultTimeoutMs
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      return Promise.reject(new ClusterError('VALIDATION_FAILED', `transaction timeout must be a positive integer, got ${timeoutMs}`))
    }
    return this.lockFor(transactionalId).run(async () => {
      const now = this.host.clock.now()
      let txn = this.transactions.get(transactionalId)
      if (!txn) {
        const producerId = await this.host.allocateProducerId()
        txn = { transactionalId, producerId, producerEpoch: 0, state: 'Empty', partitions: [], transactionTimeoutMs: timeoutMs, txnStartTimestamp: -1, lastUpdateTimestamp: now }
        this.transactions.set(transactionalId, txn)
        await this.file.save()
        return { producerId, producerEpoch: 0 }
      }
      if (hasPendingMarkers(txn)) {
        await this.writePendingMarkers(txn)
        if (hasPendingMarkers(txn)) {
          throw new ClusterError('CONCURRENT_TRANSACTIONS', `transaction ${transactionalId} is still writing its markers; retry`)
        }
      }
      if (stateOf(txn) === 'Ongoing') {
        await this.abortWithBumpedEpoch(txn)
        if (hasPendingMarkers(txn)) {
          throw new ClusterError('CONCURRENT_TRANSACTIONS', `the open transaction of ${transactionalId} is being aborted; retry`)
        }
      }
      if (txn.producerEpoch >= MAX_PRODUCER_EPOCH) {
        txn.producerId = await this.host.allocateProducerId()
        txn.producerEpoch = 0
      } else {
        txn.producerEpoch += 1
      }
      txn.state = 'Empty'
      txn.partitions = []
      txn.transactionTimeoutMs = timeoutMs
      txn.txnStartTimestamp = -1
      txn.lastUpdateTimestamp = now
      await this.file.save()
      return { producerId: txn.producerId, producerEpoch: txn.producerEpoch }
    })
  }

  private checkProducer(txn: TransactionMetadata | undefined, transactionalId: string, producerId: number, producerEpoch: number): TransactionMetadata {
    if (!txn) throw new ClusterError('NOT_FOUND', `unknown transactional id ${JSON.stringify(transactionalId)}`)
    if (txn.producerId !== producerId || txn.producerEpoch !== producerEpoch) {
      throw new ClusterError(
        'INVALID_PRODUCER_EPOCH',
        `producer ${producerId} epoch ${producerEpoch} of ${transactionalId} is fenced: the coordinator has producer ${txn.producerId} epoch ${txn.producerEpoch}`,
        { details: { producerId: txn.producerId, producerEpoch: txn.producerEpoch } },
      )
    }
    return txn
  }

  /**
   * Kafka AddPartitionsToTxn: opens the transaction if none is open and records the partitions durably
   * before the producer may write to them (so that an abort — by the producer, a fencing or the timeout —
   * knows where to write markers).
   */
  addPartitions(transactionalId: string, producerId: number, producerEpoch: number, partitions: readonly TopicPartition[]): Promise<void> {
    return this.lockFor(transactionalId).run(async () => {
      const txn = this.checkProducer(this.transactions.get(transactionalId), transactionalId, producerId, producerEpoch)
      if (hasPendingMarkers(txn)) {
        await this.writePendingMarkers(txn)
        if (hasPendingMarkers(txn)) {
          throw new ClusterError('CONCURRENT_TRANSACTIONS', `the previous transaction of ${transactionalId} is still writing its markers; retry`)
        }
      }
      const now = this.host.clock.now()
      const added = partitions.filter((tp) => !txn.partitions.some((p) => samePartition(p, tp)))
      if (txn.state === 'Ongoing' && added.length === 0) return
      if (txn.state !== 'Ongoing') {
        txn.state = 'Ongoing'
        txn.partitions = []
        txn.txnStartTimestamp = now
      }
      txn.partitions.push(...added.map((tp) => ({ topic: tp.topic, partition: tp.partition })))
      txn.lastUpdateTimestamp = now
      await this.file.save()
    })
  }

  /**
   * Kafka EndTxn: the decision is durable first (Prepare*), then one marker per partition. Markers that cannot
   * be written now stay pending and are retried by `completePendingTransactions` (tick); the decision stands.
   */
  endTransaction(transactionalId: string, producerId: number, producerEpoch: number, result: 'COMMIT' | 'ABORT'): Promise<EndTransactionResult> {
    return this.lockFor(transactionalId).run(async () => {
      const txn = this.checkProducer(this.transactions.get(transactionalId), transactionalId, producerId, producerEpoch)
      const prepare = result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort'
      const complete = result === 'COMMIT' ? 'CompleteCommit' : 'CompleteAbort'
      if (txn.state === complete || txn.state === 'Empty') return { markersWritten: true }
      if (txn.state === prepare) {
        await this.writePendingMarkers(txn)
        return { markersWritten: stateOf(txn) === complete }
      }
      if (txn.state !== 'Ongoing') {
        throw new ClusterError('INVALID_TXN_STATE', `cannot ${result.toLowerCase()} transaction ${transactionalId} in state ${txn.state}`)
      }
      txn.state = prepare
      txn.lastUpdateTimestamp = this.host.clock.now()
      await this.file.save()
      await this.writePendingMarkers(txn)
      return { markersWritten: stateOf(txn) === complete }
    })
  }

  /** Fences the current producer (epoch + 1) and aborts its transaction with the new epoch. */
  private async abortWithBumpedEpoch(txn: TransactionMetadata): Promise<void> {
    if (txn.producerEpoch < MAX_PRODUCER_EPOCH) txn.producerEpoch += 1
    txn.state = 'PrepareAbort'
    txn.lastUpdateTimestamp = this.host.clock.now()
    await this.file.save()
    await this.writePendingMarkers(txn)
  }

  private async writePendingMarkers(txn: TransactionMetadata): Promise<void> {
    const type = txn.state === 'PrepareCommit' ? 'COMMIT' : 'ABORT'
    const pending: TopicPartition[] = []
    for (const tp of txn.partitions) {
      try {
        await this.host.writeTxnMarker(tp, type, txn.producerId, txn.producerEpoch)
      } catch (error) {
        // Kafka keeps retrying markers while the partition is unavailable and drops them once the failure is
        // permanent (partition deleted, producer fenced there); either way the decision is never undone.
        if (isRetriableClusterError(error)) pending.push(tp)
      }
    }
    txn.partitions = pending
    if (pending.length === 0) {
      txn.state = type === 'COMMIT' ? 'CompleteCommit' : 'CompleteAbort'
      txn.txnStartTimestamp = -1
    }
    txn.lastUpdateTimestamp = this.host.clock.now()
    await this.file.save()
  }

  /**
   * The coordinator's periodic work (tick): finish decisions whose markers are pending, and abort (with a
   * fencing epoch bump) every transaction open longer than its timeout. A transaction busy with a request is
   * left for the next tick.
   */
  async onTick(): Promise<void> {
    const now = this.host.clock.now()
    for (const txn of [...this.transactions.values()]) {
      const lock = this.lockFor(txn.transactionalId)
      if (lock.isLocked) continue
      const due =
        txn.state === 'PrepareCommit' ||
        txn.state === 'PrepareAbort' ||
        (txn.state === 'Ongoing' && txn.txnStartTimestamp >= 0 && now - txn.txnStartTimestamp > txn.transactionTimeoutMs)
      if (!due) continue
      await lock.run(async () => {
        const current = this.transactions.get(txn.transactionalId)
        if (!current) return
        if (current.state === 'PrepareCommit' || current.state === 'PrepareAbort') await this.writePendingMarkers(current)
        else if (current.state === 'Ongoing' && now - current.txnStartTimestamp > current.transactionTimeoutMs) await this.abortWithBumpedEpoch(current)
      })
    }
  }

  /**
   * Aborts, at this coordinator, every transaction open on a partition of `topics` (a fencing epoch bump, as
   * its timeout would): a planned switchover's grace for open transactions has run out, and the source
   * must decide them itself rather than leave the destination's STOPPING to abort what the source might
   * still commit. Returns how many it aborted.
   */
  async abortTransactionsOn(topics: readonly string[]): Promise<number> {
    const wanted = new Set(topics)
    let aborted = 0
    for (const txn of [...this.transactions.values()]) {
      if (txn.state !== 'Ongoing' || !txn.partitions.some((tp) => wanted.has(tp.topic))) continue
      await this.lockFor(txn.transactionalId).run(async () => {
        const current = this.transactions.get(txn.transactionalId)
        if (current?.state !== 'Ongoing') return
        await this.abortWithBumpedEpoch(current)
        aborted += 1
      })
    }
    return aborted
  }

  /** A deleted topic's partitions leave every transaction (Kafka drops markers for deleted partitions). */
  async forgetTopic(topic: string): Promise<void> {
    let changed = false
    for (const txn of this.transactions.values()) {
      const kept = txn.partitions.filter((tp) => tp.topic !== topic)
      if (kept.length !== txn.partitions.length) {
        txn.partitions = kept
        changed = true
      }
    }
    if (changed) await this.file.save()
  }
}
