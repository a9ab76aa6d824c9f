/**
 * The vocabulary of a verification (API.md §"Round 3": `POST /mirrors/{m}/verify`): how a partition's two
 * logs are compared and what a difference is called.
 *
 *   bytes    the destination holds the source's batches as they were fetched (an embedded destination, KIP-1279's
 *            byte-for-byte mirroring): every batch is compared byte for byte and both sides' CRC32C checked.
 *   content  the destination re-encodes the records (a Kafka destination, by emulation): every record is
 *            compared by type, key, value, headers and timestamp at its offset, translated where the
 *            destination's offsets differ from the source's.
 */

export type VerificationMode = 'bytes' | 'content'

/**
 * What kind of difference a mismatch is:
 *   crc      a batch fails its own CRC32C (the bytes changed after the batch was written: bit rot, a bad disk)
 *   bytes    a batch's bytes differ from the source's batch at the same offset
 *   content  a record's type, key, value, headers or timestamp differ from the source's record at that offset
 *   missing  the source has it, the destination does not
 *   extra    the destination has it, the source does not (written behind the mirror's back, or lost at the source)
 */
export type MismatchKind = 'crc' | 'bytes' | 'content' | 'missing' | 'extra'

export interface Mismatch {
  readonly offset: number
  readonly kind: MismatchKind
  readonly detail: string
}

/** The CRC32C (Castagnoli) of a byte range, injected: lib stays pure, the server passes the native one. */
export type Checksum = (bytes: Uint8Array) => number

/** Byte equality of two ranges, injected for the same reason (the server compares natively). */
export type BytesEqual = (a: Uint8Array, b: Uint8Array) => boolean

/** A record as content mode compares it; keys, values and header values as bytes. */
export interface ContentRecord {
  /** In the source's offsets (a destination record's offset translated back). */
  readonly offset: number
  readonly type: string
  readonly key: Uint8Array | null
  readonly value: Uint8Array | null
  readonly headers: ReadonlyArray<{ readonly key: string; readonly value: Uint8Array | null }>
  readonly timestamp: number
}

/** Mismatches kept per partition; the count goes on beyond it (a rotten disk can differ everywhere). */
export const MAX_MISMATCHES_KEPT = 100
