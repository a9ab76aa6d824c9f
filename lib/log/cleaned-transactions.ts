import type { AbortedTransaction, BatchHeader, ControlInfo } from './types'

/**
 * What the log cleaner knows about transactions while it walks the log in offset order in one pass (Kafka's
 * CleanedTransactionMetadata, one per pass across every group), pure. Fed the aborted transactions of each
 * segment before it is walked (from the `.txnindex` files), it answers per batch whether the batch may be discarded:
 * - a data batch of an aborted transaction: yes (read_committed consumers never see it);
 * - an ABORT marker: only once no batch of its transaction is left (a marker whose data was removed in this
 *   pass stays one more pass, so a consumer that read the data earlier still meets the marker);
 * - a COMMIT marker: only when no batch of its transaction was seen in this pass;
 * - any other batch: no.
 * A discardable marker still waits for its batch's delete horizon (the caller's rule).
 */
export class CleanedTransactions {
  /** Aborted transactions not yet reached, by first offset. */
  private readonly upcoming: AbortedTransaction[]
  private readonly ongoingAborted = new Map<number, { aborted: AbortedTransaction; lastObservedBatchOffset: number | null }>()
  private readonly ongoingCommitted = new Set<number>()
  private readonly known = new Set<string>()
  /** Aborted transactions whose marker is kept and whose data went in this pass: the cleaned segment's `.txnindex`. */
  private retained: AbortedTransaction[] = []

  constructor(aborted: readonly AbortedTransaction[] = []) {
    this.upcoming = []
    this.addAborted(aborted)
  }

  /** Adds aborted transactions (those already known, e.g. spanning two segments, are ignored). */
  addAborted(aborted: readonly AbortedTransaction[]): void {
    for (const t of aborted) {
      const id = `${t.producerId}:${t.firstOffset}`
      if (this.known.has(id)) continue
      this.known.add(id)
      this.upcoming.push(t)
    }
    this.upcoming.sort((a, b) => a.firstOffset - b.firstOffset)
  }

  /** The index entries of the markers kept since the last call (one cleaned segment's `.txnindex`). */
  takeRetainedAbortedIndex(): AbortedTransaction[] {
    const out = this.retained
    this.retained = []
    return out
  }

  private consumeAbortedUpTo(offset: number): void {
    while (this.upcoming.length > 0 && this.upcoming[0]!.firstOffset <= offset) {
      const aborted = this.upcoming.shift()!
      this.ongoingAborted.set(aborted.producerId, { aborted, lastObservedBatchOffset: null })
    }
  }

  /** A data batch: true when it belongs to an aborted transaction and can go. */
  onDataBatch(header: BatchHeader): boolean {
    this.consumeAbortedUpTo(header.lastOffset)
    if (!header.isTransactional) return false
    const aborted = this.ongoingAborted.get(header.producerId)
    if (aborted) {
      aborted.lastObservedBatchOffset = header.lastOffset
      return true
    }
    this.ongoingCommitted.add(header.producerId)
    return false
  }

  /** A control batch (`control` undefined when it was emptied already): true when the marker may go. */
  onControlBatch(header: BatchHeader, control: ControlInfo | undefined): boolean {
    this.consumeAbortedUpTo(header.lastOffset)
    if (!control || header.recordCount === 0) return true
    switch (control.type) {
      case 'ABORT': {
        const aborted = this.ongoingAborted.get(header.producerId)
        this.ongoingAborted.delete(header.producerId)
        if (aborted && aborted.lastObservedBatchOffset !== null) {
          this.retained.push(aborted.aborted)
          return false
        }
        return true
      }
      case 'COMMIT':
        return !this.ongoingCommitted.delete(header.producerId)
      default:
        return false
    }
  }
}
