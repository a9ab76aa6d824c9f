import 'server-only'
import { splitBatches } from '@/lib/log/record-batch'
import { committedRecords, decodeRecords } from '@/lib/log/records-view'
import { uncompressed } from '../batch-decompression'
import { ClusterError } from '../errors'
import type { IsolationLevel, TopicPartition } from '../ports'
import { toRecordView, type RecordsPage, type RecordView } from '../embedded/records-view'
import type { KafkaConnection } from './connection'
import { wholeBatches } from './fetched-batches'
import type { KafkaMetadata } from './metadata-cache'
import type { PartitionOffsets } from './partition-offsets'
import { errorName, fetchRequest, ISOLATION_LEVEL } from './protocol'

/**
 * The API's records view (API.md "Records response") of a Kafka partition: raw fetches from the leader at the
 * requested isolation level, decoded with the same batch codec as the embedded cluster, so markers and
 * producer ids read the same; compressed batches opened by ../batch-decompression.ts (all four codecs). Mirroring
 * never decompresses: batches are copied as they are.
 */

const FETCH_BYTES = 1 << 20
const MAX_ROUNDS = 50

export async function readKafkaRecords(
  deps: { connection: KafkaConnection; metadata: KafkaMetadata; offsets: PartitionOffsets },
  tp: TopicPartition,
  options: { fromOffset?: number; limit: number; isolation: IsolationLevel },
): Promise<RecordsPage> {
  const { connection, metadata } = deps
  const offsets = (await deps.offsets.of([tp])).get(tp)!
  const fromOffset = options.fromOffset ?? offsets.logStartOffset
  if (fromOffset < offsets.logStartOffset || fromOffset > offsets.logEndOffset) {
    throw new ClusterError('OFFSET_OUT_OF_RANGE', `offset ${fromOffset} is outside [${offsets.logStartOffset}, ${offsets.logEndOffset}] of ${tp.topic}-${tp.partition}`, {
      details: { logStartOffset: offsets.logStartOffset, logEndOffset: offsets.logEndOffset },
    })
  }
  const bound = options.isolation === 'read_committed' ? offsets.lastStableOffset : offsets.highWatermark
  const records: RecordView[] = []
  let next = fromOffset
  for (let round = 0; round < MAX_ROUNDS && next < bound && records.length < options.limit; round++) {
    const partition = metadata.cached(tp)
    if (!partition) throw new ClusterError('NOT_FOUND', `${tp.topic}-${tp.partition} does not exist`)
    const response = await connection.send(
      partition.leader,
      fetchRequest({
        maxWaitMs: 0,
        maxBytes: FETCH_BYTES,
        isolationLevel: ISOLATION_LEVEL[options.isolation],
        topics: [{ topic: tp.topic, partitions: [{ partition: tp.partition, currentLeaderEpoch: -1, fetchOffset: next, lastFetchedEpoch: -1, maxBytes: FETCH_BYTES }] }],
      }),
    )
    const answer = response.topics[0]?.partitions[0]
    if (!answer) throw new ClusterError('SOURCE_UNAVAILABLE', `the leader of ${tp.topic}-${tp.partition} did not answer`)
    const name = errorName(answer.errorCode)
    if (name !== 'NONE') {
      await metadata.refresh([tp.topic]).catch(() => undefined)
      throw new ClusterError(name === 'OFFSET_OUT_OF_RANGE' ? 'OFFSET_OUT_OF_RANGE' : 'SOURCE_UNAVAILABLE', `reading ${tp.topic}-${tp.partition}@${next}: the broker answered ${name}`)
    }
    const whole = wholeBatches(answer.records).records
    const batches = splitBatches(whole).map(({ header, position }) => uncompressed({ ...header, raw: whole.subarray(position, position + header.sizeInBytes) }))
    if (batches.length === 0) break
    const decoded =
      options.isolation === 'read_committed'
        ? committedRecords({ batches, abortedTransactions: answer.abortedTransactions }, { fromOffset: next, includeControl: true })
        : decodeRecords(batches, { fromOffset: next })
    for (const record of decoded) {
      if (record.offset >= bound || records.length >= options.limit) break
      const view = toRecordView(record)
      if (view) records.push(view)
    }
    next = Math.max(next, batches.at(-1)!.lastOffset + 1)
  }
  return {
    topic: tp.topic,
    partition: tp.partition,
    ...offsets,
    leaderEpoch: metadata.cached(tp)?.leaderEpoch ?? -1,
    records,
  }
}
