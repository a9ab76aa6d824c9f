import { decodeBatchRecords, readControlInfo } from './record-batch'
import type { BatchHeader, LogRecord } from './types'

/** A batch as returned by a read: header fields plus its exact bytes. */
export type BatchWithBytes = BatchHeader & { raw: Uint8Array }

export interface DecodeOptions {
  /** Skip records below this offset (a fetch returns the whole batch containing the fetch offset). */
  fromOffset?: number
  /** Include control records (COMMIT/ABORT/MIRROR_PID_RESET). Default true. */
  includeControl?: boolean
}

/** Every record of the batches, in offset order: the "records" view, data and control alike. */
export function* decodeRecords(batches: Iterable<BatchWithBytes>, options: DecodeOptions = {}): Generator<LogRecord> {
  const fromOffset = options.fromOffset ?? -1
  const includeControl = options.includeControl ?? true
  for (const batch of batches) {
    if (batch.lastOffset < fromOffset) continue
    if (batch.isControl && !includeControl) continue
    for (const record of decodeBatchRecords(batch.raw, batch)) {
      if (record.offset >= fromOffset) yield record
    }
  }
}

/**
 * What a read_committed consumer returns from a fetch: data records with the records of aborted transactions
 * removed (control records too, unless `includeControl`: the API's records view shows markers like the KIP's
 * tables). Follows Kafka's consumer (Fetcher/CompletedFetch): an aborted transaction applies to a producer
 * from its first offset until that producer's ABORT marker.
 */
export function* committedRecords(
  read: { batches: Iterable<BatchWithBytes>; abortedTransactions: ReadonlyArray<{ producerId: number; firstOffset: number }> },
  options: { fromOffset?: number; includeControl?: boolean } = {},
): Generator<LogRecord> {
  const fromOffset = options.fromOffset ?? -1
  const aborted = [...read.abortedTransactions].sort((a, b) => a.firstOffset - b.firstOffset)
  let next = 0
  const abortedProducers = new Set<number>()
  for (const batch of read.batches) {
    if (batch.producerId >= 0) {
      while (next < aborted.length && aborted[next]!.firstOffset <= batch.lastOffset) {
        abortedProducers.add(aborted[next]!.producerId)
        next++
      }
      if (batch.isControl) {
        if (readControlInfo(batch.raw, batch).type === 'ABORT') abortedProducers.delete(batch.producerId)
      } else if (batch.isTransactional && abortedProducers.has(batch.producerId)) continue
    }
    if ((batch.isControl && !options.includeControl) || batch.lastOffset < fromOffset) continue
    for (const record of decodeBatchRecords(batch.raw, batch)) {
      if (record.offset >= fromOffset) yield record
    }
  }
}
