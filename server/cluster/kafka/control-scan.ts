import 'server-only'
import { readControlInfo, splitBatches } from '@/lib/log/record-batch'
import { ClusterError, type ClusterErrorCode } from '../errors'
import type { FetchPartitionResult, SourceCluster, TopicPartition } from '../ports'

const FETCH_BYTES = 1 << 20

/** A failed fetch answer's code in the cluster vocabulary. */
export function fetchErrorCode(result: Extract<FetchPartitionResult, { ok: false }>): ClusterErrorCode {
  const code = result.error.code
  return code === 'UNKNOWN_TOPIC_OR_PARTITION' ? 'NOT_FOUND' : code === 'CORRUPT_MESSAGE' ? 'CORRUPT_RECORD' : code
}

/** The broker offset of the first control record of `type` at or after `fromOffset`, read raw up to the high watermark; null when none. */
export async function scanControlRecord(cluster: SourceCluster, tp: TopicPartition, type: 'ABORT' | 'COMMIT', fromOffset: number): Promise<number | null> {
  let next = fromOffset
  for (;;) {
    const [result] = await cluster.fetch([{ ...tp, fetchOffset: next, lastFetchedEpoch: -1, maxBytes: FETCH_BYTES }], { maxBytes: FETCH_BYTES })
    if (!result) return null
    if (!result.ok) {
      if (result.error.code === 'OFFSET_OUT_OF_RANGE' && result.logStartOffset !== undefined && result.logStartOffset > next) {
        next = result.logStartOffset
        continue
      }
      if (result.error.code === 'OFFSET_OUT_OF_RANGE') return null
      throw new ClusterError(fetchErrorCode(result), `scanning ${tp.topic}-${tp.partition} for ${type}: ${result.error.message}`)
    }
    const batches = splitBatches(result.records)
    if (batches.length === 0) return null
    for (const { header, position } of batches) {
      if (header.baseOffset < fromOffset || !header.isControl) continue
      if (readControlInfo(result.records.subarray(position, position + header.sizeInBytes), header).type === type) return header.baseOffset
    }
    next = batches.at(-1)!.header.lastOffset + 1
    if (next >= result.highWatermark) return null
  }
}
