import 'server-only'

/**
 * Where a source offset sits on the destination broker (DESIGN.md §5): a client produce gets the broker's next
 * offset, so offsets stay identical only while the source leaves no gap the destination cannot reproduce (a
 * compacted-away record, a MIRROR_PID_RESET no client can write, a marker without a transaction to end, a
 * mirror started above offset 0). Each such point starts a segment: from `sourceOffset` on, destination =
 * `destinationOffset + (source - sourceOffset)`. An identical mirror has one segment (0 → 0) or none.
 */
export interface TranslationSegment {
  sourceOffset: number
  destinationOffset: number
}

export class OffsetTranslation {
  private segments: TranslationSegment[]

  constructor(segments: readonly TranslationSegment[] = []) {
    this.segments = segments.map((s) => ({ ...s })).sort((a, b) => a.sourceOffset - b.sourceOffset)
  }

  entries(): TranslationSegment[] {
    return this.segments.map((s) => ({ ...s }))
  }

  /** True while every mapped source offset is its own destination offset. */
  get identical(): boolean {
    return this.segments.every((s) => s.sourceOffset === s.destinationOffset)
  }

  /** Records that `sourceOffset` lands at `destinationOffset`; a no-op when the current segment already says so. */
  record(sourceOffset: number, destinationOffset: number): boolean {
    // A later point overrides whatever was recorded at or beyond it (the log was restarted there).
    const before = this.segments.length
    this.segments = this.segments.filter((s) => s.sourceOffset < sourceOffset)
    if (this.toDestination(sourceOffset) === destinationOffset) return this.segments.length !== before
    this.segments.push({ sourceOffset, destinationOffset })
    return true
  }

  /**
   * Forgets the segments wholly below `sourceOffset` (the log start: nothing below it is read or synced any more),
   * keeping the one that covers it. Atomic appends add a segment per append (their COMMIT markers); this bounds them
   * by the log's retention.
   */
  pruneBelow(sourceOffset: number): void {
    const covering = this.segments.findLastIndex((s) => s.sourceOffset <= sourceOffset)
    if (covering > 0) this.segments = this.segments.slice(covering)
  }

  /** The destination offset of a source offset; identity below the first segment. */
  toDestination(sourceOffset: number): number {
    let found: TranslationSegment | undefined
    for (const segment of this.segments) {
      if (segment.sourceOffset > sourceOffset) break
      found = segment
    }
    return found ? found.destinationOffset + (sourceOffset - found.sourceOffset) : sourceOffset
  }

  /** The source offset a destination offset stands for: the latest segment starting at or below it. */
  toSource(destinationOffset: number): number {
    let found: TranslationSegment | undefined
    for (const segment of this.segments) {
      if (segment.destinationOffset > destinationOffset) break
      found = segment
    }
    return found ? found.sourceOffset + (destinationOffset - found.destinationOffset) : destinationOffset
  }
}
