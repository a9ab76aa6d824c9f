import 'server-only'
import type { LogSegment } from './segment'

/**
 * The segments of one log in base-offset order (Kafka's LogSegments). Never empty once a log is loaded: the
 * last segment is the active one.
 */
export class LogSegments {
  private list: LogSegment[]

  constructor(segments: LogSegment[]) {
    if (segments.length === 0) throw new RangeError('a log has at least one segment')
    this.list = segments
  }

  get active(): LogSegment {
    return this.list.at(-1)!
  }

  get first(): LogSegment {
    return this.list[0]!
  }

  get count(): number {
    return this.list.length
  }

  at(index: number): LogSegment {
    const segment = this.list[index]
    if (!segment) throw new RangeError(`no segment at index ${index} of ${this.list.length}`)
    return segment
  }

  all(): readonly LogSegment[] {
    return this.list
  }

  /** The segments before the active one (sealed: their index files are on disk). */
  inactive(): readonly LogSegment[] {
    return this.list.slice(0, -1)
  }

  get totalSize(): number {
    let sum = 0
    for (const segment of this.list) sum += segment.size
    return sum
  }

  /** Index of the segment holding `offset` (the last one whose base offset is ≤ it), or 0. */
  indexFor(offset: number): number {
    let lo = 0
    let hi = this.list.length - 1
    let found = 0
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.list[mid]!.baseOffset <= offset) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found
  }

  /** How many leading segments lie wholly below `offset` (never the active one). */
  countWhollyBelow(offset: number): number {
    let n = 0
    while (n < this.list.length - 1 && this.list[n + 1]!.baseOffset <= offset) n++
    return n
  }

  push(segment: LogSegment): void {
    this.list.push(segment)
  }

  /** Removes and returns the first `n` segments. */
  removeFirst(n: number): LogSegment[] {
    return this.list.splice(0, n)
  }

  /** Removes and returns the segments after index `index`, last first. */
  removeAfter(index: number): LogSegment[] {
    return this.list.splice(index + 1).reverse()
  }

  /** Replaces segments [from, from + count) by `replacement` (the cleaner's swap). */
  replace(from: number, count: number, replacement: LogSegment): void {
    this.list.splice(from, count, replacement)
  }

  reset(segment: LogSegment): void {
    this.list = [segment]
  }
}
