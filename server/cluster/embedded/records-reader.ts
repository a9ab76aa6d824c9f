import 'server-only'
import type { IsolationLevel, PartitionLogApi, ReadResult } from '@/server/storage/types'
import { ClusterError, toClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import { isInteger, type ClusterDirectory } from './cluster-directory'
import { validateCount, validateOffset } from './metadata'
import { recordsOfRead, toRecordView, type RecordsPage, type RecordView } from './records-view'

export interface ReadRecordsOptions {
  fromOffset?: number
  limit?: number
  isolation?: IsolationLevel
}

export type OffsetSpec = 'earliest' | 'latest' | { timestamp: number }

const MAX_READ_LIMIT = 10_000
const READ_CHUNK_BYTES = 1 << 20

/**
 * The one chunked read loop of the embedded cluster: reads `log` from `fromOffset` up to `bound` a
 * megabyte at a time and yields each read with the offset it started at. Whole batches come back, so the
 * first batch of a read may begin below that offset; the caller skips what it does not want. Stopping the
 * iteration early stops the reading.
 */
export async function* readChunks(log: PartitionLogApi, fromOffset: number, bound: number, isolation?: IsolationLevel): AsyncGenerator<{ read: ReadResult; fromOffset: number }> {
  let offset = fromOffset
  while (offset < bound) {
    const read = await log.read(offset, READ_CHUNK_BYTES, isolation === undefined ? { maxOffset: bound } : { isolation, maxOffset: bound })
    const last = read.batches.at(-1)
    if (!last) return
    yield { read, fromOffset: offset }
    offset = last.lastOffset + 1
  }
}

/** What clients read: the API's records view and Kafka's ListOffsets. */
export class RecordsReader {
  constructor(private readonly directory: ClusterDirectory) {}

  /**
   * The records view of API.md: one entry per offset holding a record (control records included), from the
   * leader, bounded by the high watermark (read_uncommitted) or the last stable offset (read_committed).
   */
  async readRecords(topicName: string, partitionIndex: number, options: ReadRecordsOptions = {}): Promise<RecordsPage> {
    this.directory.ensureReachable()
    const partition = this.directory.requirePartition({ topic: topicName, partition: partitionIndex })
    const isolation = options.isolation ?? 'read_uncommitted'
    if (isolation !== 'read_uncommitted' && isolation !== 'read_committed') throw new ClusterError('VALIDATION_FAILED', `unknown isolation level ${JSON.stringify(isolation)}`)
    const limit = options.limit === undefined ? 100 : validateCount(options.limit, 'limit', MAX_READ_LIMIT)
    const log = partition.leaderLog()
    const fromOffset = options.fromOffset === undefined ? log.logStartOffset : validateOffset(options.fromOffset, 'fromOffset')
    if (fromOffset < log.logStartOffset || fromOffset > log.logEndOffset) {
      throw new ClusterError('OFFSET_OUT_OF_RANGE', `offset ${fromOffset} is outside [${log.logStartOffset}, ${log.logEndOffset}] of ${topicName}-${partitionIndex}`, {
        details: { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset },
      })
    }
    const records: RecordView[] = []
    const bound = isolation === 'read_committed' ? log.lastStableOffset : log.highWatermark
    try {
      chunks: for await (const chunk of readChunks(log, fromOffset, bound, isolation)) {
        for (const record of recordsOfRead(chunk.read, chunk.fromOffset, isolation)) {
          if (records.length >= limit) break chunks
          const view = toRecordView(record)
          if (view) records.push(view)
        }
        if (records.length >= limit) break
      }
    } catch (error) {
      throw toClusterError(error)
    }
    return {
      topic: topicName,
      partition: partitionIndex,
      logStartOffset: log.logStartOffset,
      highWatermark: log.highWatermark,
      lastStableOffset: log.lastStableOffset,
      logEndOffset: log.logEndOffset,
      leaderEpoch: partition.metadata.leaderEpoch,
      records,
    }
  }

  /** Kafka ListOffsets: earliest (log start), latest (HW, or LSO for read_committed), or the first offset at/after a timestamp. */
  async listOffsets(tp: TopicPartition, spec: OffsetSpec, isolation: IsolationLevel = 'read_uncommitted'): Promise<{ offset: number | null; timestamp: number | null; leaderEpoch: number | null }> {
    this.directory.ensureReachable()
    const log = this.directory.requirePartition(tp).leaderLog()
    if (spec === 'earliest') return { offset: log.logStartOffset, timestamp: null, leaderEpoch: log.epochForOffset(log.logStartOffset) }
    if (spec === 'latest') {
      const offset = isolation === 'read_committed' ? log.lastStableOffset : log.highWatermark
      return { offset, timestamp: null, leaderEpoch: log.latestEpoch() }
    }
    if (spec === null || typeof spec !== 'object' || !isInteger(spec.timestamp, 0)) {
      throw new ClusterError('VALIDATION_FAILED', 'offset spec must be "earliest", "latest" or { timestamp: ms }')
    }
    const found = await log.offsetForTimestamp(spec.timestamp)
    if (!found || found.offset >= log.highWatermark) return { offset: null, timestamp: null, leaderEpoch: null }
    return { offset: found.offset, timestamp: found.timestamp, leaderEpoch: found.leaderEpoch }
  }
}
