import 'server-only'
import { committedRecords, decodeRecords } from '@/lib/log/records-view'
import type { LogRecord } from '@/lib/log/types'
import type { IsolationLevel, ReadResult } from '@/server/storage/types'
import { uncompressed } from '../batch-decompression'

/** One entry of the API's records view (API.md "Records response"): data and control records alike. */
export interface RecordView {
  offset: number
  type: 'DATA' | 'COMMIT' | 'ABORT' | 'MIRROR_PID_RESET'
  producerId: number | null
  producerEpoch: number
  leaderEpoch: number
  transactional: boolean
  timestamp: number
  key: string | null
  value: string | null
  headers: Array<{ key: string; value: string | null }>
  /** Present when a key, value or header value is not valid UTF-8: then all of them are base64. */
  encoding?: 'base64'
}

export interface RecordsPage {
  topic: string
  partition: number
  logStartOffset: number
  highWatermark: number
  lastStableOffset: number
  logEndOffset: number
  leaderEpoch: number
  records: RecordView[]
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

function decodeUtf8(bytes: Uint8Array | null): string | null | undefined {
  if (bytes === null) return null
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

function base64(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}

/** The API view of one decoded record, or null for control records the API has no type for. */
export function toRecordView(record: LogRecord): RecordView | null {
  if (record.type === 'CONTROL') return null
  if (record.type !== 'DATA') {
    // A control record's key and value are the marker's binary encoding; the API shows them as null, like the KIP's tables.
    return {
      offset: record.offset,
      type: record.type,
      producerId: record.producerId,
      producerEpoch: record.producerEpoch,
      leaderEpoch: record.leaderEpoch,
      transactional: record.transactional,
      timestamp: record.timestamp,
      key: null,
      value: null,
      headers: [],
    }
  }
  const key = decodeUtf8(record.key)
  const value = decodeUtf8(record.value)
  const headerValues = record.headers.map((h) => decodeUtf8(h.value))
  const binary = key === undefined || value === undefined || headerValues.some((v) => v === undefined)
  const view: RecordView = {
    offset: record.offset,
    type: record.type,
    producerId: record.producerId,
    producerEpoch: record.producerEpoch,
    leaderEpoch: record.leaderEpoch,
    transactional: record.transactional,
    timestamp: record.timestamp,
    key: binary ? base64(record.key) : (key ?? null),
    value: binary ? base64(record.value) : (value ?? null),
    headers: record.headers.map((h, i) => ({ key: h.key, value: binary ? base64(h.value) : (headerValues[i] ?? null) })),
  }
  if (binary) view.encoding = 'base64'
  return view
}

/**
 * Records of one read, from `fromOffset` on. read_committed leaves out the data of aborted transactions (the
 * consumer's algorithm over the fetch's aborted-transaction list) but keeps control records, so the page reads
 * like the KIP's tables.
 */
export function* recordsOfRead(read: ReadResult, fromOffset: number, isolation: IsolationLevel): Generator<LogRecord> {
  // Batches mirrored from a real Kafka cluster keep their compression.
  const batches = read.batches.map(uncompressed)
  if (isolation === 'read_uncommitted') {
    yield* decodeRecords(batches, { fromOffset })
    return
  }
  yield* committedRecords({ batches, abortedTransactions: read.abortedTransactions }, { fromOffset, includeControl: true })
}
