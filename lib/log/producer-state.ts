import { StorageError } from './errors'
import type { ControlInfo, OpenTransaction } from './types'
import { NO_PRODUCER_EPOCH, NO_SEQUENCE } from './types'

/**
 * Per-partition producer state (Kafka's ProducerStateManager + ProducerAppendInfo), pure.
 *
 * For every producer id seen in the log: its epoch, the metadata of its last 5 batches (duplicate
 * detection of idempotent retries), its coordinator epoch and the first offset of its open transaction.
 * Plus the open transactions in offset order and the completed transactions whose marker is not yet
 * below the high watermark — together they bound the last stable offset.
 *
 * Checks are separate from updates, as in Kafka: `checkClientBatch`/`checkMarker` throw on a batch the
 * leader must refuse, `apply` records a batch that is in the log and never throws, so replication and
 * recovery replay (which trust the log) share it.
 */

/** Batches remembered per producer for duplicate detection (Kafka's NUM_BATCHES_TO_RETAIN). */
export const BATCHES_TO_RETAIN = 5

export interface BatchMetadata {
  firstSeq: number
  lastSeq: number
  lastOffset: number
  /** lastOffset - baseOffset */
  offsetDelta: number
  timestamp: number
}

export interface ProducerEntry {
  producerId: number
  producerEpoch: number
  coordinatorEpoch: number
  lastTimestamp: number
  batches: BatchMetadata[]
  /** First offset of the open transaction, or null when none is open. */
  currentTxnFirstOffset: number | null
}

export interface CompletedTransaction {
  producerId: number
  firstOffset: number
  /** Offset of the marker. */
  lastOffset: number
  isAborted: boolean
}

/** The fields of a batch the producer state needs (a subset of BatchHeader, plus the control record). */
export interface ProducerBatch {
  producerId: number
  producerEpoch: number
  baseSequence: number
  lastSequence: number
  baseOffset: number
  lastOffset: number
  maxTimestamp: number
  isTransactional: boolean
  isControl: boolean
  /** Required for control batches. */
  control?: ControlInfo
}

export interface AppliedBatch {
  /** Set when a COMMIT/ABORT marker closed a transaction that had data. */
  completed?: CompletedTransaction
  /** For an ABORT: the LSO once it is applied (Kafka writes it to the `.txnindex` entry). */
  lastStableOffset?: number
}

/** Serialisable state, written to producer snapshots. */
export interface ProducerStateSnapshot {
  version: 1
  /** The state reflects every batch below this offset. */
  offset: number
  producers: ProducerEntry[]
  unreplicated: CompletedTransaction[]
}

const INT32_MAX = 2147483647

function isInSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX)
}

function emptyEntry(producerId: number): ProducerEntry {
  return { producerId, producerEpoch: NO_PRODUCER_EPOCH, coordinatorEpoch: -1, lastTimestamp: -1, batches: [], currentTxnFirstOffset: null }
}

function lastSequenceOf(entry: ProducerEntry): number {
  return entry.batches.at(-1)?.lastSeq ?? NO_SEQUENCE
}

export class ProducerStateManager {
  private producers = new Map<number, ProducerEntry>()
  /** Open transactions by producer id; insertion order is first-offset order because the log is appended in order. */
  private ongoing = new Map<number, number>()
  /** Completed transactions whose marker offset is ≥ the high watermark, in marker order. */
  private unreplicated: CompletedTransaction[] = []

  get producerCount(): number {
    return this.producers.size
  }

  entry(producerId: number): ProducerEntry | undefined {
    return this.producers.get(producerId)
  }

  entries(): ProducerEntry[] {
    return [...this.producers.values()]
  }

  /** Open transactions ordered by first offset. */
  openTransactions(): OpenTransaction[] {
    const out: OpenTransaction[] = []
    for (const [producerId, firstOffset] of this.ongoing) {
      out.push({ producerId, producerEpoch: this.producers.get(producerId)?.producerEpoch ?? NO_PRODUCER_EPOCH, firstOffset })
    }
    return out
  }

  /**
   * The original offsets of an idempotent retry: a batch of the same producer epoch with the same first and
   * last sequence among the last 5 batches. undefined when it is not a duplicate.
   */
  findDuplicate(producerId: number, producerEpoch: number, firstSeq: number, lastSeq: number): { baseOffset: number; lastOffset: number } | undefined {
    const entry = this.producers.get(producerId)
    if (!entry || entry.producerEpoch !== producerEpoch) return undefined
    const match = entry.batches.find((b) => b.firstSeq === firstSeq && b.lastSeq === lastSeq)
    return match && { baseOffset: match.lastOffset - match.offsetDelta, lastOffset: match.lastOffset }
  }

  /**
   * Checks a client data batch before the leader appends it (Kafka's CLIENT origin). Throws
   * INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE or INVALID_TXN_STATE. Call `findDuplicate` first.
   */
  checkClientBatch(batch: Pick<ProducerBatch, 'producerId' | 'producerEpoch' | 'baseSequence' | 'isTransactional' | 'baseOffset'>): void {
    const entry = this.producers.get(batch.producerId)
    if (!entry) return // unknown producer (new, or its state was reset/removed): any sequence is accepted
    const where = `producer ${batch.producerId} at offset ${batch.baseOffset}`
    if (batch.producerEpoch < entry.producerEpoch) {
      throw new StorageError('INVALID_PRODUCER_EPOCH', `epoch ${batch.producerEpoch} of ${where} is smaller than the last seen epoch ${entry.producerEpoch}`)
    }
    if (batch.producerEpoch !== entry.producerEpoch) {
      if (batch.baseSequence !== 0 && entry.producerEpoch !== NO_PRODUCER_EPOCH) {
        throw new StorageError('OUT_OF_ORDER_SEQUENCE', `invalid sequence ${batch.baseSequence} for new epoch ${batch.producerEpoch} of ${where} (current epoch ${entry.producerEpoch})`)
      }
    } else if (entry.producerEpoch !== NO_PRODUCER_EPOCH && !isInSequence(lastSequenceOf(entry), batch.baseSequence)) {
      throw new StorageError('OUT_OF_ORDER_SEQUENCE', `out of order sequence ${batch.baseSequence} for ${where}: last sequence was ${lastSequenceOf(entry)}`)
    }
    if (entry.currentTxnFirstOffset !== null && !batch.isTransactional) {
      throw new StorageError('INVALID_TXN_STATE', `expected a transactional write from ${where}: its transaction is open since ${entry.currentTxnFirstOffset}`)
    }
  }

  /** Checks a COMMIT/ABORT marker written by the coordinator. Throws INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED. */
  checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number): void {
    const entry = this.producers.get(producerId)
    if (!entry) return
    if (producerEpoch < entry.producerEpoch) {
      throw new StorageError('INVALID_PRODUCER_EPOCH', `marker epoch ${producerEpoch} of producer ${producerId} is smaller than the last seen epoch ${entry.producerEpoch}`)
    }
    if (coordinatorEpoch < entry.coordinatorEpoch) {
      throw new StorageError('TRANSACTION_COORDINATOR_FENCED', `coordinator epoch ${coordinatorEpoch} of the marker for producer ${producerId} is older than ${entry.coordinatorEpoch}`)
    }
  }

  /**
   * Records a batch that is now part of the log. `highWatermark` decides whether a transaction completed by
   * this batch still holds the LSO back. Never throws: replication and replay trust the log.
   */
  apply(batch: ProducerBatch, highWatermark: number): AppliedBatch {
    if (batch.isControl) {
      const control = batch.control
      if (control?.type === 'MIRROR_PID_RESET') {
        // KIP-1279 barrier: every entry derived from mirrored data is dropped, open transactions included.
        this.producers.clear()
        this.ongoing.clear()
        return {}
      }
      if ((control?.type === 'COMMIT' || control?.type === 'ABORT') && batch.producerId >= 0) {
        return this.applyMarker(batch, control.type === 'ABORT', control.coordinatorEpoch ?? 0, highWatermark)
      }
      return {}
    }
    if (batch.producerId < 0) return {}
    let entry = this.producers.get(batch.producerId)
    if (!entry) {
      entry = emptyEntry(batch.producerId)
      this.producers.set(batch.producerId, entry)
    }
    if (entry.producerEpoch !== batch.producerEpoch) {
      entry.batches = []
      entry.producerEpoch = batch.producerEpoch
    }
    entry.batches.push({
      firstSeq: batch.baseSequence,
      lastSeq: batch.lastSequence,
      lastOffset: batch.lastOffset,
      offsetDelta: batch.lastOffset - batch.baseOffset,
      timestamp: batch.maxTimestamp,
    })
    if (entry.batches.length > BATCHES_TO_RETAIN) entry.batches.shift()
    entry.lastTimestamp = batch.maxTimestamp
    if (batch.isTransactional && entry.currentTxnFirstOffset === null) {
      entry.currentTxnFirstOffset = batch.baseOffset
      this.ongoing.set(batch.producerId, batch.baseOffset)
    }
    return {}
  }

  private applyMarker(batch: ProducerBatch, isAborted: boolean, coordinatorEpoch: number, highWatermark: number): AppliedBatch {
    let entry = this.producers.get(batch.producerId)
    if (!entry) {
      entry = emptyEntry(batch.producerId)
      this.producers.set(batch.producerId, entry)
    }
    const firstOffset = entry.currentTxnFirstOffset
    if (entry.producerEpoch !== batch.producerEpoch) {
      entry.batches = []
      entry.producerEpoch = batch.producerEpoch
    }
    entry.currentTxnFirstOffset = null
    entry.coordinatorEpoch = coordinatorEpoch
    entry.lastTimestamp = batch.maxTimestamp
    if (firstOffset === null) return {} // a marker without data changes neither the LSO nor the aborted index
    this.ongoing.delete(batch.producerId)
    const completed: CompletedTransaction = { producerId: batch.producerId, firstOffset, lastOffset: batch.baseOffset, isAborted }
    if (completed.lastOffset >= highWatermark) this.unreplicated.push(completed)
    const nextOpen = this.ongoing.values().next()
    return { completed, lastStableOffset: nextOpen.done ? completed.lastOffset + 1 : nextOpen.value }
  }

  /** Completed transactions whose marker is now below the high watermark stop holding the LSO back. */
  onHighWatermarkUpdated(highWatermark: number): void {
    if (this.unreplicated.length > 0) this.unreplicated = this.unreplicated.filter((t) => t.lastOffset >= highWatermark)
  }

  /** First offset that is not yet decided (open transaction or unreplicated completion), or undefined. */
  firstUndecidedOffset(): number | undefined {
    let first: number | undefined
    const open = this.ongoing.values().next()
    if (!open.done) first = open.value
    for (const t of this.unreplicated) if (first === undefined || t.firstOffset < first) first = t.firstOffset
    return first
  }

  /** Kafka's LSO: min(HW, first undecided offset), never below the log start offset. */
  lastStableOffset(highWatermark: number, logStartOffset: number): number {
    const undecided = this.firstUndecidedOffset()
    const lso = undecided === undefined ? highWatermark : Math.min(undecided, highWatermark)
    return Math.max(lso, logStartOffset)
  }

  snapshot(offset: number): ProducerStateSnapshot {
    return {
      version: 1,
      offset,
      producers: [...this.producers.values()].map((e) => ({ ...e, batches: e.batches.map((b) => ({ ...b })) })),
      unreplicated: this.unreplicated.map((t) => ({ ...t })),
    }
  }

  static fromSnapshot(snapshot: ProducerStateSnapshot): ProducerStateManager {
    const manager = new ProducerStateManager()
    for (const e of snapshot.producers) manager.producers.set(e.producerId, { ...e, batches: e.batches.map((b) => ({ ...b })) })
    const open = snapshot.producers.filter((e) => e.currentTxnFirstOffset !== null)
    open.sort((a, b) => a.currentTxnFirstOffset! - b.currentTxnFirstOffset!)
    for (const e of open) manager.ongoing.set(e.producerId, e.currentTxnFirstOffset!)
    manager.unreplicated = snapshot.unreplicated.map((t) => ({ ...t }))
    return manager
  }
}

/** Validates the shape of a parsed snapshot (files are checksummed, this guards against version drift). */
export function isProducerStateSnapshot(value: unknown): value is ProducerStateSnapshot {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return v.version === 1 && typeof v.offset === 'number' && Array.isArray(v.producers) && Array.isArray(v.unreplicated)
}
