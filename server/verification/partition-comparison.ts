import 'server-only'
import { Buffer } from 'node:buffer'
import type { VerificationPartition } from '@/lib/api/verifications'
import { decodeBatchRecords } from '@/lib/log/record-batch'
import type { LogRecord } from '@/lib/log/types'
import { batchesOf, compareByteStep, type ByteComparisonTools, type ComparedBatch } from '@/lib/verify/batch-comparison'
import { compareContentStep, type DestinationContentRecord } from '@/lib/verify/content-comparison'
import { MAX_MISMATCHES_KEPT, type ContentRecord, type Mismatch, type VerificationMode } from '@/lib/verify/types'
import { identicalSentence, identicalUpTo } from '@/lib/verify/verification-range'
import { uncompressed } from '@/server/cluster/batch-decompression'
import type { SourceCluster, TopicPartition } from '@/server/cluster/ports'
import { crc32c } from '@/server/storage/crc32c'

/**
 * One partition's comparison, chunk by chunk from where it stands (`verifiedTo`) to the end of its range:
 * each step fetches the same offsets from both sides as a consumer would (the SourceCluster port of each
 * cluster), hands the answers to lib/verify, and records what it found in the partition's entry before the
 * next step. An entry read back after a restart therefore resumes at its `verifiedTo` with its mismatches.
 */

/** Bytes asked of each side per step: a step's synchronous work (read, split, CRC, compare) is a few ms; smaller steps cost more than they read. */
export const CHUNK_BYTES = 4 << 20

/** A side that cannot be read (a broker moving, a link down) is asked again this often before the partition fails. */
const ATTEMPTS = 4
const RETRY_DELAY_MS = 500

/** Where a destination that re-encodes records keeps them (content mode); identity for one that does not. */
export interface OffsetMapping {
  toDestination(sourceOffset: number): number
  toSource(destinationOffset: number): number
}

export const IDENTITY_MAPPING: OffsetMapping = { toDestination: (offset) => offset, toSource: (offset) => offset }

export interface PartitionSides {
  readonly source: SourceCluster
  readonly destination: SourceCluster
  readonly mode: VerificationMode
  readonly mapping: OffsetMapping
  /**
   * Where each side's step is read (an embedded cluster reads into it; its length is the bytes asked of each
   * side per step): one pair per worker, reused step after step, so a step faults in no fresh memory and its
   * bytes are still in the CPU's cache when they are compared and checksummed. Nothing of a step is kept past it.
   */
  readonly buffers: StepBuffers
}

export interface StepBuffers {
  readonly source: Buffer
  readonly destination: Buffer
}

export function stepBuffers(chunkBytes: number): StepBuffers {
  return { source: Buffer.allocUnsafe(chunkBytes), destination: Buffer.allocUnsafe(chunkBytes) }
}

export interface StepControl {
  /** True once the verification is cancelled or the server closes: the partition stops after its step. */
  stopped(): boolean
  /** Waits while the throttle's budget is spent; then the step's bytes are counted with `consumed`. */
  admit(): Promise<void>
  consumed(bytes: number): void
  /** Gives the event loop back when the time slice is used up. */
  pace(): Promise<void>
  /** After each step: the entry changed. */
  progressed(): void
}

const tools: ByteComparisonTools = {
  crc32c,
  equal: (a, b) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
  decode: (batch) => decodeBatchRecords(uncompressed({ ...batch.header, raw: batch.bytes }).raw),
}

type SideRead = { kind: 'records'; bytes: Uint8Array } | { kind: 'startsAt'; logStartOffset: number } | { kind: 'ended' }

/** One side's answer at `offset`: its batches, where its log now starts when it moved past, or nothing more. */
async function readSide(cluster: SourceCluster, tp: TopicPartition, offset: number, which: 'source' | 'destination', into: Buffer): Promise<SideRead> {
  const chunkBytes = into.length
  let lastError = ''
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const [result] = await cluster.fetch([{ ...tp, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: chunkBytes }], { maxBytes: chunkBytes, maxWaitMs: 0, into })
      if (result === undefined) throw new Error('no answer for the partition')
      if (result.ok) return result.records.byteLength === 0 ? { kind: 'ended' } : { kind: 'records', bytes: result.records }
      if (result.error.code === 'OFFSET_OUT_OF_RANGE') {
        if (result.logStartOffset !== undefined && offset < result.logStartOffset) return { kind: 'startsAt', logStartOffset: result.logStartOffset }
        return { kind: 'ended' }
      }
      lastError = `${result.error.code}: ${result.error.message}`
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error)
    }
    if (attempt < ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt))
  }
  throw new Error(`the ${which} of ${tp.topic}-${tp.partition} could not be read at offset ${offset}: ${lastError}`)
}

function record(entry: VerificationPartition, found: readonly Mismatch[]): void {
  for (const mismatch of found) {
    entry.mismatchCount += 1
    if (entry.mismatches.length < MAX_MISMATCHES_KEPT) entry.mismatches.push({ offset: mismatch.offset, kind: mismatch.kind, detail: mismatch.detail })
  }
}

/** Recomputes what an entry says of itself after a change. */
export function refreshEntry(entry: VerificationPartition): void {
  entry.identicalUpTo = identicalUpTo(entry)
  entry.summary = identicalSentence(entry)
}

function sourceContent(records: readonly LogRecord[]): ContentRecord[] {
  return records.map((r) => ({ offset: r.offset, type: r.type, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp }))
}

function destinationContent(records: readonly LogRecord[], mapping: OffsetMapping): DestinationContentRecord[] {
  return records.map((r) => ({ offset: mapping.toSource(r.offset), destinationOffset: r.offset, type: r.type, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp }))
}

function decodeAll(batches: readonly ComparedBatch[]): LogRecord[] {
  return batches.flatMap((batch) => [...tools.decode(batch)])
}

/**
 * Compares the partition from `entry.verifiedTo` to `entry.toOffset`. Resolves when done, stopped or when a
 * side cannot be read (then the entry is `failed` with the reason); never rejects.
 */
export async function comparePartition(entry: VerificationPartition, sides: PartitionSides, control: StepControl): Promise<void> {
  const tp = { topic: entry.topic, partition: entry.partition }
  entry.status = 'running'
  try {
    while (entry.verifiedTo < entry.toOffset) {
      if (control.stopped()) return
      await control.admit()
      const cursor = entry.verifiedTo
      const [source, destination] = await Promise.all([
        readSide(sides.source, tp, cursor, 'source', sides.buffers.source),
        readSide(sides.destination, tp, sides.mapping.toDestination(cursor), 'destination', sides.buffers.destination),
      ])
      // Retention moved a log's start past the cursor while the comparison ran: the range starts there now.
      const movedStart = Math.max(source.kind === 'startsAt' ? source.logStartOffset : 0, destination.kind === 'startsAt' ? sides.mapping.toSource(destination.logStartOffset) : 0)
      if (movedStart > cursor) {
        entry.fromOffset = Math.min(movedStart, entry.toOffset)
        entry.verifiedTo = entry.fromOffset
        continue
      }
      const sourceBytes = source.kind === 'records' ? source.bytes : new Uint8Array(0)
      const destinationBytes = destination.kind === 'records' ? destination.bytes : new Uint8Array(0)
      let sourceBatches: ComparedBatch[]
      let destinationBatches: ComparedBatch[]
      try {
        sourceBatches = batchesOf(sourceBytes)
      } catch (error) {
        throw new Error(`the source's batches at offset ${cursor} cannot be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
      }
      try {
        destinationBatches = batchesOf(destinationBytes)
      } catch (error) {
        // The destination's framing itself is broken: nothing past it can be lined up.
        record(entry, [{ offset: cursor, kind: 'crc', detail: `the destination's batches from offset ${cursor} cannot be read (${error instanceof Error ? error.message : String(error)}); nothing past it was compared` }])
        entry.status = 'mismatched'
        return
      }
      const before = entry.verifiedTo
      if (sides.mode === 'bytes') {
        const step = compareByteStep({ source: sourceBatches, destination: destinationBatches, cursor, to: entry.toOffset }, tools)
        record(entry, step.mismatches)
        entry.batches += step.batches
        entry.bytes += step.bytes
        entry.verifiedTo = step.next
      } else {
        const lastSource = sourceBatches.at(-1)
        const lastDestination = destinationBatches.at(-1)
        const step = compareContentStep({
          source: sourceContent(decodeAll(sourceBatches)),
          destination: destinationContent(decodeAll(destinationBatches), sides.mapping),
          cursor,
          to: entry.toOffset,
          ...(lastSource === undefined ? {} : { sourceEnd: lastSource.last + 1 }),
          ...(lastDestination === undefined ? {} : { destinationEnd: sides.mapping.toSource(lastDestination.last) + 1 }),
        })
        record(entry, step.mismatches)
        entry.batches += step.records
        entry.bytes += sourceBatches.filter((batch) => batch.last >= cursor && batch.first < step.next).reduce((sum, batch) => sum + batch.bytes.length, 0)
        entry.verifiedTo = step.next
      }
      control.consumed(sourceBytes.byteLength + destinationBytes.byteLength)
      refreshEntry(entry)
      control.progressed()
      if (entry.verifiedTo <= before) throw new Error(`the comparison did not move past offset ${before}`)
      await control.pace()
    }
    entry.status = entry.mismatchCount > 0 ? 'mismatched' : 'identical'
  } catch (error) {
    entry.status = 'failed'
    entry.error = error instanceof Error ? error.message : String(error)
  } finally {
    refreshEntry(entry)
    control.progressed()
  }
}
