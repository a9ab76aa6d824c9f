import 'server-only'
import type { ClusterError } from '../errors'

interface Waiter {
  /** Resolved once the high watermark reaches this offset (exclusive end of the append). */
  offset: number
  /** The leadership the append was made under: another one never commits it. */
  generation: number
  deadline: number
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * The acks=all appends of one partition waiting for its high watermark (Kafka's DelayedProduce purgatory for a
 * partition): resolved when the high watermark passes them under the leadership they were made in, rejected
 * when leadership moves, the log is truncated below them or their request times out.
 */
export class CommitWaiters {
  private waiters: Waiter[] = []

  wait(offset: number, generation: number, deadline: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ offset, generation, deadline, resolve, reject })
    })
  }

  isEmpty(): boolean {
    return this.waiters.length === 0
  }

  resolveUpTo(highWatermark: number, generation: number): void {
    if (this.waiters.length > 0) this.settle((waiter) => (waiter.generation === generation && waiter.offset <= highWatermark ? 'resolve' : null))
  }

  rejectAll(error: ClusterError): void {
    this.settle(() => error)
  }

  /** Appends beyond `logEndOffset`: truncation removed them. */
  rejectAbove(logEndOffset: number, error: ClusterError): void {
    this.settle((waiter) => (waiter.offset > logEndOffset ? error : null))
  }

  /** Those whose request timed out by `now`. */
  expire(now: number, error: () => ClusterError): void {
    if (this.waiters.some((waiter) => waiter.deadline <= now)) {
      const timedOut = error()
      this.settle((waiter) => (waiter.deadline <= now ? timedOut : null))
    }
  }

  private settle(outcome: (waiter: Waiter) => 'resolve' | ClusterError | null): void {
    const keep: Waiter[] = []
    for (const waiter of this.waiters) {
      const settled = outcome(waiter)
      if (settled === 'resolve') waiter.resolve()
      else if (settled === null) keep.push(waiter)
      else waiter.reject(settled)
    }
    this.waiters = keep
  }
}
