import 'server-only'

/**
 * Long loops over thousands of partitions share one event loop with HTTP requests and SSE streams.
 * Awaited promises that resolve at once are microtasks, which never let I/O in; these helpers give
 * the loop back (a macrotask turn) so a 10,000-partition sweep costs requests a few ms, not the sweep.
 */

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Yields once `budgetMs` of synchronous work has run since the last yield. One slice may be shared by many
 * concurrent workers (forEachConcurrently): they then wait on the same turn, and the slice restarts once
 * for all of them. A turn per worker, each restarting the slice, gave every one of 128 workers its own
 * budget in a single pass of the event loop (a 250 ms stall in the 100,000-partition flap).
 */
export class TimeSlice {
  private sliceStart = performance.now()
  private turn: Promise<void> | undefined

  constructor(private readonly budgetMs = 2) {}

  /**
   * A promise to await when the slice is used up, else undefined: `const turn = slice.maybeYield(); if (turn)
   * await turn`. Not async on purpose: under Next.js every promise pays for async-context tracking, and a
   * sweep asks once per partition.
   */
  maybeYield(): Promise<void> | undefined {
    if (this.turn) return this.turn
    if (performance.now() - this.sliceStart < this.budgetMs) return undefined
    this.turn = yieldToEventLoop().then(() => {
      this.turn = undefined
      this.sliceStart = performance.now()
    })
    return this.turn
  }
}

/**
 * A budget for one turn of the event loop shared by callers that do not know each other: a timer's callback that
 * starts a hundred produce calls runs all their appends (encode, write, replicate) as one chain of microtasks, one
 * turn of 30–90 ms of CPU that every request and timer waited behind. Each caller asks before its piece of work;
 * once the turn has spent `budgetMs` on such pieces, the callers wait for the next turn (all of them re-ask then,
 * so a crowd woken together does not run past the budget). Unlike TimeSlice, a caller in a fresh turn never waits:
 * the budget starts with the turn's first ask and ends with the turn (an immediate marks it), so work arriving one
 * request at a time pays nothing.
 */
export class TurnBudget {
  private turnStart = -1
  private next: Promise<void> | undefined

  constructor(private readonly budgetMs = 4) {}

  /**
   * A promise to await when this turn's budget is spent, else undefined (not async: see TimeSlice.maybeYield). Ask
   * right before the synchronous work, and again after each wait —
   * `for (let turn = budget.maybeYield(); turn; turn = budget.maybeYield()) await turn` — never through a helper
   * that resolves first: every caller woken with the others would pass its ask before any of them had worked.
   */
  maybeYield(): Promise<void> | undefined {
    if (this.next) return this.next
    const now = performance.now()
    if (this.turnStart < 0) {
      this.turnStart = now
      setImmediate(() => {
        this.turnStart = -1
      })
      return undefined
    }
    if (now - this.turnStart < this.budgetMs) return undefined
    this.next = yieldToEventLoop().then(() => {
      this.next = undefined
    })
    return this.next
  }

}

/**
 * Runs `work` over `items` with at most `limit` in flight, yielding to the event loop between starts
 * when the time slice is used up. Concurrency lets durable writes of many partitions share one fsync
 * (state store, metadata file); the limit keeps a sweep from queueing 10,000 promises at once.
 * Rejects with the first failure after every started item has settled.
 */
export async function forEachConcurrently<T>(items: Iterable<T>, limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency limit must be a positive integer, got ${limit}`)
  const iterator = items[Symbol.iterator]()
  const slice = new TimeSlice()
  let failure: { error: unknown } | null = null
  const worker = async () => {
    for (;;) {
      // Before the item as well as after: a worker woken with the others must not start one more item
      // each once the slice is used up.
      const before = slice.maybeYield()
      if (before) await before
      const next = iterator.next()
      if (next.done) return
      try {
        await work(next.value)
      } catch (error) {
        failure ??= { error }
      }
      const turn = slice.maybeYield()
      if (turn) await turn
    }
  }
  await Promise.all(Array.from({ length: limit }, worker))
  if (failure) throw (failure as { error: unknown }).error
}
