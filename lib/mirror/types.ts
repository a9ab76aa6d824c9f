/**
 * Plain value types shared by the mirror core. They carry Kafka's vocabulary so that values can be
 * passed from the cluster ports to the pure functions without translation.
 */

/**
 * A (leader epoch, offset) pair: a last mirror position, or the answer of an endOffsetForEpoch lookup.
 * Kafka writes "undefined" as (-1, -1); the core uses `null` for it and accepts (-1, -1) on input.
 */
export interface EpochOffset {
  readonly epoch: number
  readonly offset: number
}

import type { OpenTransaction } from '../log/types'

export type { OpenTransaction }

/** True for a real position; false for `null` and for Kafka's undefined (-1, -1) or any negative part. */
export function isDefinedEpochOffset(value: EpochOffset | null | undefined): value is EpochOffset {
  return value != null && value.epoch >= 0 && value.offset >= 0
}

/** Orders open transactions the way ABORT markers must be appended: by first offset, then producer id. */
export function byFirstOffset(a: OpenTransaction, b: OpenTransaction): number {
  return a.firstOffset - b.firstOffset || a.producerId - b.producerId
}
