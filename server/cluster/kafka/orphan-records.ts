import 'server-only'
import { readControlInfo, splitBatches } from '@/lib/log/record-batch'
import type { BatchHeader } from '@/lib/log/types'
import { ClusterError } from '../errors'
import type { SourceCluster, TopicPartition } from '../ports'
import { fetchErrorCode } from './control-scan'

const FETCH_BYTES = 1 << 20

/** The broker's producer session (id and epoch) that wrote a destination transaction's batches. */
export interface DestinationSession {
  producerId: number
  producerEpoch: number
}

export interface HeldBatch {
  header: BatchHeader
  bytes: Uint8Array
}

/**
 * The data batches a dead writer's destination transaction held on the partition, read back from the destination
 * itself (raw, read_uncommitted: aborting a transaction leaves its records in the log, skipped by read_committed
 * readers), so a new transaction can carry them again (kafka-mirror-host.ts, recoverOrphans). Between `from` and `to`
 * (destination offsets) other producers' batches may stand too (records outside the transaction, other
 * transactions): only the transactional batches of one producer session are taken — `session` when known, else the
 * session of the first transactional batch at or after `from` (the transaction's first record is there).
 */
export async function heldBatches(cluster: SourceCluster, tp: TopicPartition, from: number, to: number, session: DestinationSession | null): Promise<{ session: DestinationSession | null; batches: HeldBatch[]; logStartOffset: number | null }> {
  const batches: HeldBatch[] = []
  let logStartOffset: number | null = null
  for (let next = from; next < to; ) {
    const [result] = await cluster.fetch([{ ...tp, fetchOffset: next, lastFetchedEpoch: -1, maxBytes: FETCH_BYTES }], { maxBytes: FETCH_BYTES })
    if (!result) break
    if (!result.ok) {
      // Retention removed the start of the range: what is left is still carried; the caller counts what is missing.
      if (result.error.code === 'OFFSET_OUT_OF_RANGE' && result.logStartOffset !== undefined && result.logStartOffset > next) {
        logStartOffset = result.logStartOffset
        next = result.logStartOffset
        continue
      }
      throw new ClusterError(fetchErrorCode(result), `reading ${tp.topic}-${tp.partition} back from ${next}: ${result.error.message}`)
    }
    const found = splitBatches(result.records)
    if (found.length === 0) break
    for (const { header, position } of found) {
      if (header.baseOffset < from || header.baseOffset >= to || header.isControl || !header.isTransactional) continue
      session ??= { producerId: header.producerId, producerEpoch: header.producerEpoch }
      if (header.producerId !== session.producerId || header.producerEpoch !== session.producerEpoch) continue
      batches.push({ header, bytes: result.records.subarray(position, position + header.sizeInBytes) })
    }
    next = found.at(-1)!.header.lastOffset + 1
  }
  return { session, batches, logStartOffset }
}

/**
 * How the destination transaction of producer `producerId` ended at or after `from` (its COMMIT or ABORT marker),
 * waiting up to `waitMs` for the coordinator to write it (EndTxn and InitProducerId answer before the marker is in);
 * null when none came: that transaction is not one the caller's claim ended (another writer's transactional id).
 */
export async function transactionEnd(cluster: SourceCluster, tp: TopicPartition, producerId: number, from: number, waitMs: number): Promise<{ type: 'COMMIT' | 'ABORT'; offset: number } | null> {
  const deadline = Date.now() + waitMs
  let next = from
  for (;;) {
    const [result] = await cluster.fetch([{ ...tp, fetchOffset: next, lastFetchedEpoch: -1, maxBytes: FETCH_BYTES }], { maxBytes: FETCH_BYTES })
    if (result && !result.ok && result.error.code !== 'OFFSET_OUT_OF_RANGE') throw new ClusterError(fetchErrorCode(result), `reading ${tp.topic}-${tp.partition} from ${next}: ${result.error.message}`)
    const records = result?.ok ? result.records : new Uint8Array()
    const found = splitBatches(records)
    for (const { header, position } of found) {
      if (header.baseOffset < next || !header.isControl || header.producerId !== producerId) continue
      const { type } = readControlInfo(records.subarray(position, position + header.sizeInBytes), header)
      if (type === 'COMMIT' || type === 'ABORT') return { type, offset: header.baseOffset }
    }
    if (found.length > 0) {
      next = found.at(-1)!.header.lastOffset + 1
      continue
    }
    if (Date.now() > deadline) return null
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Atomic appends (issue #40): whether destination offsets `from`–`to - 1` hold nothing but transactions of producer
 * `producerId` (the partition's own transactional id) that ended aborted — what a writer that crashed, was fenced or
 * failed mid-append left once the partition's id was claimed again. Such a tail is skipped, never read as a produce
 * whose answer was lost (unacknowledged-produce.ts would keep its records) nor as another client's write.
 */
export async function abortedTail(cluster: SourceCluster, tp: TopicPartition, from: number, to: number, producerId: number): Promise<boolean> {
  let last: 'DATA' | 'ABORT' | null = null
  for (let next = from; next < to; ) {
    const [result] = await cluster.fetch([{ ...tp, fetchOffset: next, lastFetchedEpoch: -1, maxBytes: FETCH_BYTES }], { maxBytes: FETCH_BYTES })
    if (!result || !result.ok) return false
    const found = splitBatches(result.records)
    if (found.length === 0) return false
    for (const { header, position } of found) {
      if (header.lastOffset < from || header.baseOffset >= to) continue
      if (header.producerId !== producerId || !header.isTransactional) return false
      if (!header.isControl) {
        last = 'DATA'
        continue
      }
      if (readControlInfo(result.records.subarray(position, position + header.sizeInBytes), header).type !== 'ABORT') return false
      last = 'ABORT'
    }
    next = found.at(-1)!.header.lastOffset + 1
  }
  return last === 'ABORT'
}
