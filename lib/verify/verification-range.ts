/**
 * Which offsets of a partition a verification compares, and what its outcome says. Pure: the server reads
 * the offsets, these decide.
 *
 * The range is the mirrored one. A partition that failed over (STOPPING, STOPPED) compares up to its last
 * mirror position: what lies after it on the destination is its own (the failover's ABORT markers and PID
 * reset, then new writes), and what lies after it on the source is the data the failover left behind. Any
 * other partition compares up to the destination's high watermark as it is when its turn comes; a source
 * that ends below it has lost records the destination still holds (reported as extra, not hidden).
 */
import type { Mismatch } from './types'

export interface RangeInput {
  readonly state: string
  readonly lastMirrorPosition: { readonly epoch: number; readonly offset: number } | null
  readonly source: { readonly logStartOffset: number }
  /** In the source's offsets (a Kafka destination's translated back). */
  readonly destination: { readonly logStartOffset: number; readonly highWatermark: number }
}

export interface VerificationRange {
  readonly fromOffset: number
  /** Exclusive. Equal to fromOffset when there is nothing to compare. */
  readonly toOffset: number
}

const FAILED_OVER = new Set(['STOPPING', 'STOPPED'])

export function verificationRange(input: RangeInput): VerificationRange {
  const position = input.lastMirrorPosition
  const failedOver = FAILED_OVER.has(input.state) && position !== null
  // (-1, -1): the log was empty when the failover captured it; nothing of it was mirrored.
  const end = failedOver ? Math.max(0, position.offset) : input.destination.highWatermark
  const fromOffset = Math.max(input.source.logStartOffset, input.destination.logStartOffset)
  return { fromOffset, toOffset: Math.max(fromOffset, end) }
}

export type PartitionVerificationStatus = 'pending' | 'running' | 'identical' | 'mismatched' | 'failed' | 'cancelled'
export type VerificationStatus = 'running' | 'passed' | 'mismatched' | 'failed' | 'cancelled'

/** Up to where a partition is known identical: its range start to its first mismatch, or to where it got. */
export function identicalUpTo(partition: { readonly fromOffset: number; readonly verifiedTo: number; readonly mismatches: readonly Pick<Mismatch, 'offset'>[] }): number {
  const first = partition.mismatches.reduce((lowest, mismatch) => Math.min(lowest, mismatch.offset), Number.POSITIVE_INFINITY)
  return Math.max(partition.fromOffset, Math.min(first, partition.verifiedTo))
}

/**
 * The verification's status once no partition runs: failed when a partition could not be compared (its
 * cluster unreachable), else mismatched when one differs, else passed.
 */
export function settledStatus(partitions: ReadonlyArray<{ readonly status: PartitionVerificationStatus }>): Exclude<VerificationStatus, 'running' | 'cancelled'> {
  if (partitions.some((partition) => partition.status === 'failed')) return 'failed'
  if (partitions.some((partition) => partition.status === 'mismatched')) return 'mismatched'
  return 'passed'
}

/** "identical up to offset N" in the report's words, with what stopped it. */
export function identicalSentence(partition: { readonly status: PartitionVerificationStatus; readonly fromOffset: number; readonly toOffset: number; readonly identicalUpTo: number; readonly error: string | null }): string {
  if (partition.status === 'failed') return `not verified: ${partition.error ?? 'the comparison could not finish'}`
  if (partition.status === 'pending' || partition.status === 'running') return `verifying, identical up to offset ${partition.identicalUpTo} so far`
  if (partition.status === 'cancelled') return `cancelled, identical up to offset ${partition.identicalUpTo}`
  if (partition.toOffset === partition.fromOffset) return 'nothing to compare (no mirrored records in the range)'
  if (partition.status === 'identical') return `identical up to offset ${partition.toOffset}`
  return `identical up to offset ${partition.identicalUpTo}, first difference at offset ${partition.identicalUpTo}`
}
