import 'server-only'

/**
 * The whole batches of a Fetch answer's record set. A broker reads a byte range of its segment, so the set may
 * end in a partial batch (cut at the fetch's byte budget): it is dropped, and the base timestamp in its header
 * (when that much of it came) tells how old the next unfetched record is without another request.
 */

/** v2 batch layout: baseOffset int64, batchLength int32, partitionLeaderEpoch int32, magic int8, crc int32, attributes int16, lastOffsetDelta int32, baseTimestamp int64. */
const LOG_OVERHEAD = 12
const LAST_OFFSET_DELTA_AT = 23
const BASE_TIMESTAMP_AT = 27

export interface WholeBatches {
  /** A copy of the whole batches, detached from the response buffer. */
  records: Uint8Array
  /** Offset after the last whole batch, null when there is none. */
  nextOffset: number | null
  firstBaseTimestamp: number | null
  partialBaseTimestamp: number | null
}

export function wholeBatches(set: Buffer): WholeBatches {
  let pos = 0
  let nextOffset: number | null = null
  let firstBaseTimestamp: number | null = null
  while (pos + LOG_OVERHEAD <= set.length) {
    const size = LOG_OVERHEAD + set.readInt32BE(pos + 8)
    if (pos + size > set.length) break
    const baseOffset = Number(set.readBigInt64BE(pos))
    nextOffset = baseOffset + set.readInt32BE(pos + LAST_OFFSET_DELTA_AT) + 1
    firstBaseTimestamp ??= Number(set.readBigInt64BE(pos + BASE_TIMESTAMP_AT))
    pos += size
  }
  const partialBaseTimestamp = pos < set.length && set.length - pos >= BASE_TIMESTAMP_AT + 8 ? Number(set.readBigInt64BE(pos + BASE_TIMESTAMP_AT)) : null
  return { records: new Uint8Array(set.subarray(0, pos)), nextOffset, firstBaseTimestamp: firstBaseTimestamp ?? partialBaseTimestamp, partialBaseTimestamp }
}
