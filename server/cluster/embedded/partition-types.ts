/** What a replicated partition (replicated-partition.ts) answers and takes, apart from the class. */

export interface LeaderAppend<T> {
  result: T
  /** Exclusive end of what was appended; the append is committed once the high watermark reaches it. */
  endOffset: number
  generation: number
}

export interface PartitionOffsets {
  logStartOffset: number
  highWatermark: number
  lastStableOffset: number
  logEndOffset: number
}

export interface ElectionOptions {
  unclean?: boolean
}
