/**
 * One step of a two-sided walk over a partition's range: what each side answered from the same cursor
 * (whole batches in byte mode, records in content mode), lined up by offset. Pure; both comparison modes
 * (batch-comparison.ts, content-comparison.ts) share it, so they agree on what was compared and where the
 * next step starts.
 *
 * Each side answered from `cursor` up to wherever its fetch ended. Only what BOTH sides cover is judged now:
 * the limit is the lower of the two answers' ends (a side that answered nothing has nothing more below its
 * bound, so it does not limit) and the range's end. Items that straddle the limit wait for the next step,
 * which starts at the limit; items at or beyond the range end are never judged.
 */

/** An item of one side: a batch (its first and last offset) or a record (first = last). */
export interface OffsetSpan {
  readonly first: number
  readonly last: number
}

export interface SideAnswer<T extends OffsetSpan> {
  /** In offset order. May start before the cursor (a fetch returns the whole batch holding it). */
  readonly items: readonly T[]
  /**
   * Where the answer's coverage ends (exclusive) when its items do not say it: records decoded from batches
   * end where the last batch ends, even when its last records were compacted away. Absent: after the last item.
   */
  readonly end?: number
}

export type Aligned<S, D> = { readonly kind: 'both'; readonly source: S; readonly destination: D } | { readonly kind: 'sourceOnly'; readonly source: S } | { readonly kind: 'destinationOnly'; readonly destination: D }

export interface AlignedStep<S, D> {
  /** In offset order. */
  readonly pairs: ReadonlyArray<Aligned<S, D>>
  /** Where the next step starts: always above `cursor` (the walk cannot stall). */
  readonly next: number
}

function coverEnd(answer: SideAnswer<OffsetSpan>): number {
  if (answer.end !== undefined) return answer.end
  const last = answer.items.at(-1)
  return last === undefined ? Number.POSITIVE_INFINITY : last.last + 1
}

/**
 * Lines up the two answers from `cursor` within [cursor, `to`). Throws on a cursor at or past `to`
 * (nothing left to compare: the caller's loop ends before).
 */
export function alignStep<S extends OffsetSpan, D extends OffsetSpan>(source: SideAnswer<S>, destination: SideAnswer<D>, cursor: number, to: number): AlignedStep<S, D> {
  if (!(cursor < to)) throw new RangeError(`cursor ${cursor} is not below the range end ${to}`)
  const limit = Math.min(coverEnd(source), coverEnd(destination), to)
  const judged = <T extends OffsetSpan>(items: readonly T[]) => items.filter((item) => item.last >= cursor && item.last < limit)
  const left = judged(source.items)
  const right = judged(destination.items)
  const pairs: Array<Aligned<S, D>> = []
  let i = 0
  let j = 0
  while (i < left.length || j < right.length) {
    const s = left[i]
    const d = right[j]
    if (s !== undefined && d !== undefined && s.first === d.first) {
      pairs.push({ kind: 'both', source: s, destination: d })
      i++
      j++
    } else if (s !== undefined && (d === undefined || s.first < d.first)) {
      pairs.push({ kind: 'sourceOnly', source: s })
      i++
    } else {
      pairs.push({ kind: 'destinationOnly', destination: d! })
      j++
    }
  }
  // A side's first item can end beyond the other's whole answer; the limit still moves past the cursor
  // because each answer holds the item containing the cursor (its last offset is at least the cursor).
  return { pairs, next: Math.max(limit, cursor + 1) }
}
