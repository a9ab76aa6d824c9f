/**
 * Byte mode (types.ts): a destination that holds the source's batches exactly as fetched is compared batch
 * by batch. Two batches at the same offset must be the same bytes, and each side's batch must pass its own
 * CRC32C: a byte that rotted on the destination's disk fails both checks, one flipped at the source (or in
 * a mirror that re-encoded) fails only the first. Where bytes differ, the records are decoded to name the
 * offset and field that differ, so the operator reads "offset 42: value …", not "batch 40 differs".
 */
import { computedBatchCrc, splitBatches } from '../log/record-batch'
import type { BatchHeader, LogRecord } from '../log/types'
import { alignStep, type OffsetSpan } from './aligned-step'
import { describeRecordDifference } from './record-difference'
import type { BytesEqual, Checksum, ContentRecord, Mismatch } from './types'

export interface ComparedBatch extends OffsetSpan {
  readonly header: BatchHeader
  /** Exactly the batch's bytes. */
  readonly bytes: Uint8Array
}

/** Decodes a batch's records (the server's decoder opens compressed batches too); may throw on garbage. */
export type DecodeBatch = (batch: ComparedBatch) => readonly LogRecord[]

export interface ByteComparisonTools {
  readonly crc32c: Checksum
  readonly equal: BytesEqual
  readonly decode: DecodeBatch
}

/** Splits fetched bytes into whole batches, without checking CRCs (the comparison reports them). */
export function batchesOf(bytes: Uint8Array): ComparedBatch[] {
  return splitBatches(bytes).map(({ header, position }) => ({
    first: header.baseOffset,
    last: header.lastOffset,
    header,
    bytes: bytes.subarray(position, position + header.sizeInBytes),
  }))
}

export interface ByteStepResult {
  readonly mismatches: readonly Mismatch[]
  /** Batches judged on either side (a pair counts once) and the source bytes they hold. */
  readonly batches: number
  readonly bytes: number
  readonly next: number
}

function span(batch: ComparedBatch): string {
  return batch.first === batch.last ? `${batch.first}` : `${batch.first}–${batch.last}`
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`
}

function crcMismatch(side: 'source' | 'destination', batch: ComparedBatch, crc32c: Checksum): Mismatch | null {
  const computed = computedBatchCrc(batch.bytes, crc32c)
  if (computed === batch.header.crc >>> 0) return null
  return {
    offset: batch.first,
    kind: 'crc',
    detail: `${side} batch ${span(batch)} fails its own CRC32C check (stored ${hex(batch.header.crc >>> 0)}, computed ${hex(computed)}): its bytes changed after it was written, and a broker refuses it when it is replicated or recovered`,
  }
}

const HEADER_FIELDS = ['sizeInBytes', 'partitionLeaderEpoch', 'attributes', 'lastOffsetDelta', 'baseTimestamp', 'maxTimestamp', 'producerId', 'producerEpoch', 'baseSequence', 'recordCount'] as const

function contentOf(record: LogRecord): ContentRecord {
  return { offset: record.offset, type: record.type, key: record.key, value: record.value, headers: record.headers, timestamp: record.timestamp }
}

/** Why two batches at the same offset are not the same bytes, by record where the records can be read. */
function describeByteDifference(source: ComparedBatch, destination: ComparedBatch, decode: DecodeBatch): Mismatch[] {
  const headerDifferences = HEADER_FIELDS.filter((field) => source.header[field] !== destination.header[field]).map((field) => `${field}: source ${source.header[field]} / destination ${destination.header[field]}`)
  let sourceRecords: readonly LogRecord[]
  let destinationRecords: readonly LogRecord[]
  try {
    sourceRecords = decode(source)
    destinationRecords = decode(destination)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return [{ offset: source.first, kind: 'bytes', detail: `batch ${span(source)} differs from the source's${headerDifferences.length > 0 ? ` (${headerDifferences.join('; ')})` : ''} and its records cannot be read: ${reason}` }]
  }
  const byOffset = new Map(destinationRecords.map((record) => [record.offset, record]))
  const found: Mismatch[] = []
  for (const record of sourceRecords) {
    const other = byOffset.get(record.offset)
    byOffset.delete(record.offset)
    if (other === undefined) {
      found.push({ offset: record.offset, kind: 'missing', detail: `record at offset ${record.offset} (${record.type}) is in the source's batch ${span(source)} but not in the destination's` })
      continue
    }
    const difference = describeRecordDifference(contentOf(record), contentOf(other))
    if (difference !== null) found.push({ offset: record.offset, kind: 'bytes', detail: `record at offset ${record.offset} differs: ${difference}` })
  }
  for (const record of byOffset.values()) {
    found.push({ offset: record.offset, kind: 'extra', detail: `record at offset ${record.offset} (${record.type}) is in the destination's batch ${span(destination)} but not in the source's` })
  }
  if (found.length === 0) {
    found.push({
      offset: source.first,
      kind: 'bytes',
      detail: `batch ${span(source)} differs from the source's in its header${headerDifferences.length > 0 ? `: ${headerDifferences.join('; ')}` : ' (CRC or unused bytes)'}; its records read the same`,
    })
  }
  return found.sort((a, b) => a.offset - b.offset)
}

/**
 * Compares one pair of batches that should be the same: the bytes, and each side's CRC. Equal bytes have one
 * CRC between them, computed once (both sides fail it alike, or neither: the copy is faithful to a rotten
 * original); different bytes get each side's CRC checked, then the records that differ named.
 */
export function compareBatchPair(source: ComparedBatch, destination: ComparedBatch, tools: ByteComparisonTools): Mismatch[] {
  const destinationCrc = crcMismatch('destination', destination, tools.crc32c)
  if (source.bytes.length === destination.bytes.length && tools.equal(source.bytes, destination.bytes)) {
    return destinationCrc === null ? [] : [{ ...destinationCrc, detail: destinationCrc.detail.replace(/^destination batch/, "destination batch (byte for byte the source's, which fails it too)") }]
  }
  const found: Mismatch[] = destinationCrc === null ? [] : [destinationCrc]
  const sourceCrc = crcMismatch('source', source, tools.crc32c)
  if (sourceCrc) found.push(sourceCrc)
  return [...found, ...describeByteDifference(source, destination, tools.decode)]
}

/**
 * One step of byte mode from `cursor`: the batches both answers cover, paired by base offset, within
 * [cursor, to). A batch on one side only is missing (source only) or extra (destination only).
 */
export function compareByteStep(input: { source: readonly ComparedBatch[]; destination: readonly ComparedBatch[]; cursor: number; to: number }, tools: ByteComparisonTools): ByteStepResult {
  const step = alignStep({ items: input.source }, { items: input.destination }, input.cursor, input.to)
  const mismatches: Mismatch[] = []
  let bytes = 0
  for (const pair of step.pairs) {
    if (pair.kind === 'both') {
      bytes += pair.source.bytes.length
      mismatches.push(...compareBatchPair(pair.source, pair.destination, tools))
    } else if (pair.kind === 'sourceOnly') {
      bytes += pair.source.bytes.length
      mismatches.push({ offset: pair.source.first, kind: 'missing', detail: `source batch ${span(pair.source)} has no batch at the same offset on the destination` })
    } else {
      mismatches.push({ offset: pair.destination.first, kind: 'extra', detail: `destination batch ${span(pair.destination)} has no batch at the same offset on the source` })
    }
  }
  return { mismatches, batches: step.pairs.length, bytes, next: step.next }
}

