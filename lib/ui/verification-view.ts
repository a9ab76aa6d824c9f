/**
 * How a verification reads on screen: its progress, its partitions worst first, and where a mismatch is shown
 * on the partition's log strips. Pure.
 */
import type { Verification, VerificationPartition } from '../api/verifications'
import { partitionHref } from './partition-href'

const ORDER: Record<VerificationPartition['status'], number> = { mismatched: 0, failed: 1, running: 2, pending: 3, cancelled: 4, identical: 5 }

/** Mismatched first, then those that could not be compared, then the rest; by topic and partition within. */
export function partitionsWorstFirst(partitions: readonly VerificationPartition[]): VerificationPartition[] {
  return [...partitions].sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.topic.localeCompare(b.topic) || a.partition - b.partition)
}

/** 0..1 of the offsets compared so far; 1 for a verification with nothing to compare. */
export function progressOf(verification: Pick<Verification, 'totals'>): number {
  const { offsets, verifiedOffsets } = verification.totals
  return offsets === 0 ? 1 : Math.min(1, verifiedOffsets / offsets)
}

/** The partition page with the verification's mismatches drawn on its tapes, opened at `offset`. */
export function mismatchHref(mirror: string, verification: string, partition: Pick<VerificationPartition, 'topic' | 'partition'>, offset: number): string {
  return `${partitionHref(mirror, partition.topic, partition.partition)}?offset=${offset}&verification=${encodeURIComponent(verification)}`
}

/** Offset → what differs there, for the log strips (several mismatches at one offset in one sentence). */
export function mismatchesByOffset(partition: Pick<VerificationPartition, 'mismatches'> | undefined): Map<number, string> {
  const byOffset = new Map<number, string>()
  for (const mismatch of partition?.mismatches ?? []) {
    const previous = byOffset.get(mismatch.offset)
    byOffset.set(mismatch.offset, previous === undefined ? mismatch.detail : `${previous}; ${mismatch.detail}`)
  }
  return byOffset
}
