// Types for the two codec packages that ship none (server/cluster/batch-decompression.ts uses them).

declare module 'snappyjs' {
  /** A raw snappy block, uncompressed; throws when it would be longer than maxLength. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array
  /** A raw snappy block (the tests build Kafka's framing around it). */
  export function compress(uncompressed: Uint8Array): Uint8Array
}

declare module 'lz4js' {
  /** An lz4 frame, uncompressed into a buffer of maxSize (sized from the frame when absent). */
  export function decompress(source: Uint8Array, maxSize?: number): Uint8Array
  /** The most an lz4 frame can hold, read from its header and block lengths. */
  export function decompressBound(source: Uint8Array): number
  /** An lz4 frame of `source` (for the tests). */
  export function compress(source: Uint8Array, maxSize?: number): Uint8Array
}
