import 'server-only'
import type { PartitionRuntime } from '../types'

/**
 * Why a partition wants the runner again: a FAILED shown but not saved is to be written, its retry is due, its
 * last state write failed, or a replica may have converged.
 */
export type WakeUpReason = 'persist' | 'restore' | 'retry' | 'convergence'

interface WakeUp {
  at: number
  /** Ties broken by scheduling order, so partitions due together run in the order they asked. */
  seq: number
  runtime: PartitionRuntime
  reason: WakeUpReason
}

/**
 * The partitions of one mirror that asked to be woken at a time (TanStack Query's timeoutManager, for the
 * engine): a min-heap on the due time, read against the engine's injected clock. The tick takes only what
 * is due, so a mirror of 100,000 partitions with 50,000 FAILED waiting for their backoff costs a tick one
 * look at the heap's top, not a visit to each of the 50,000. A wake-up names no state: the runner checks
 * on waking whether the reason still holds (a retry rescheduled or cancelled meanwhile is skipped), so
 * nothing here has to be cancelled.
 */
export class PartitionTimer {
  private readonly heap: WakeUp[] = []
  private seq = 0

  get size(): number {
    return this.heap.length
  }

  schedule(runtime: PartitionRuntime, reason: WakeUpReason, at: number): void {
    this.heap.push({ at, seq: this.seq++, runtime, reason })
    this.siftUp(this.heap.length - 1)
  }

  /** Every wake-up due at `now`, in due order, taken off; ones scheduled while the caller works them wait for the next call. */
  takeDue(now: number): Array<{ runtime: PartitionRuntime; reason: WakeUpReason }> {
    const due: Array<{ runtime: PartitionRuntime; reason: WakeUpReason }> = []
    while (this.heap.length > 0 && this.heap[0]!.at <= now) {
      const top = this.pop()
      due.push({ runtime: top.runtime, reason: top.reason })
    }
    return due
  }

  /** The earliest due time, or null when nothing waits. */
  nextAt(): number | null {
    return this.heap[0]?.at ?? null
  }

  private pop(): WakeUp {
    const top = this.heap[0]!
    const last = this.heap.pop()!
    if (this.heap.length > 0) {
      this.heap[0] = last
      this.siftDown(0)
    }
    return top
  }

  private before(a: WakeUp, b: WakeUp): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq)
  }

  private siftUp(index: number): void {
    const heap = this.heap
    while (index > 0) {
      const parent = (index - 1) >> 1
      if (!this.before(heap[index]!, heap[parent]!)) return
      ;[heap[index], heap[parent]] = [heap[parent]!, heap[index]!]
      index = parent
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap
    for (;;) {
      const left = 2 * index + 1
      const right = left + 1
      let smallest = index
      if (left < heap.length && this.before(heap[left]!, heap[smallest]!)) smallest = left
      if (right < heap.length && this.before(heap[right]!, heap[smallest]!)) smallest = right
      if (smallest === index) return
      ;[heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!]
      index = smallest
    }
  }
}
