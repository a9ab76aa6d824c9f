import 'server-only'
import { decodeBatchRecords, splitBatches } from '@/lib/log/record-batch'
import type { BatchHeader, LogRecord } from '@/lib/log/types'
import { uncompressed } from '../batch-decompression'
import type { TopicPartition } from '../ports'
import type { KafkaSourceCluster } from './kafka-source'

export interface SourceBatch {
  header: BatchHeader
  bytes: Uint8Array
}

/** A source batch the broker already holds, and where its records are. */
export interface AcknowledgedLate {
  header: BatchHeader
  baseOffset: number
  records: Array<{ sourceOffset: number; destinationOffset: number }>
}

const MAX_BYTES = 8 << 20

function recordsOf(batch: SourceBatch): LogRecord[] {
  const opened = uncompressed({ ...batch.header, raw: batch.bytes })
  return decodeBatchRecords(opened.raw, opened)
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a === null || b === null ? a === b : Buffer.from(a).equals(Buffer.from(b))
}

function sameRecord(a: LogRecord, b: LogRecord): boolean {
  return String(a.timestamp) === String(b.timestamp) && sameBytes(a.key, b.key) && sameBytes(a.value, b.value)
}

/**
 * A produce the broker wrote whose answer never came back (the broker, the connection or this server died in
 * between) leaves the broker's log end beyond the one the emulation recorded. The records there are ours when
 * they are, record by record (timestamp, key, value), the next source batches outside transactions, one
 * destination batch each: those are kept rather than produced again (nothing twice), and anything else is a
 * write by another client. Returns the leading source batches the broker already holds.
 */
export async function acknowledgedLate(source: KafkaSourceCluster, tp: TopicPartition, fromOffset: number, brokerEnd: number, batches: readonly SourceBatch[]): Promise<AcknowledgedLate[]> {
  if (brokerEnd <= fromOffset || batches.length === 0 || batches[0]!.header.isTransactional || batches[0]!.header.isControl) return []
  const [fetched] = await source.fetch([{ ...tp, fetchOffset: fromOffset, lastFetchedEpoch: -1, maxBytes: MAX_BYTES }], { maxBytes: MAX_BYTES })
  if (!fetched?.ok) return []
  const onBroker = splitBatches(fetched.records).map(({ header, position }) => ({ header, bytes: fetched.records.subarray(position, position + header.sizeInBytes) }))
  const found: AcknowledgedLate[] = []
  let next = fromOffset
  for (const [index, batch] of batches.entries()) {
    const theirs = onBroker[index]
    if (!theirs || batch.header.isTransactional || batch.header.isControl || theirs.header.isControl || theirs.header.baseOffset !== next || next >= brokerEnd) break
    const wanted = recordsOf(batch)
    const held = recordsOf(theirs)
    if (wanted.length === 0 || wanted.length !== held.length || !wanted.every((record, i) => sameRecord(record, held[i]!))) break
    found.push({ header: batch.header, baseOffset: next, records: wanted.map((record, i) => ({ sourceOffset: record.offset, destinationOffset: next + i })) })
    next += held.length
  }
  return found
}
