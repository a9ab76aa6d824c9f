import 'server-only'
import fs from 'node:fs'
import { StorageError } from '@/lib/log/errors'
import { syncsSkipped } from '@/server/util/durable-file'

interface DurabilityWaiter {
  seq: number
  /** Last offset the waiter's append wrote; -1 for plain flush() calls, which truncation never rejects. */
  lastOffset: number
  resolve: () => void
  reject: (error: Error) => void
}

/** What group commit needs from the log it serves. */
export interface GroupCommitTarget {
  /** Descriptor of the active segment, undefined while the descriptor budget has it closed. */
  activeFd(): number | undefined
  activePath(): string
  logEndOffset(): number
  /** Called when an fdatasync failed: the log goes offline (Kafka takes the log dir offline). */
  onFlushFailed(error: StorageError): void
  /** Called when the last waiter was served, so idle descriptors can be given back. */
  onIdle(): void
}

/**
 * Group commit: appends write synchronously to the page cache in call order and share fdatasyncs — while one
 * runs, later appends queue for the next, one fsync per group. Each append waits for an fsync that started
 * after its write. Truncation rejects the waiters whose data it removed (`LOG_TRUNCATED`).
 *
 * Descriptors of segments that stop being active are closed only once no fsync is using them.
 */
export class GroupCommit {
  private writeSeq = 0
  private durableSeq = 0
  private waiters: DurabilityWaiter[] = []
  private flushing = false
  private flushScheduled = false
  private fdsToClose: number[] = []
  private truncationGeneration = 0
  private failure: StorageError | undefined
  /** Offsets below this are fdatasync'd (the recovery point). */
  durableEndOffset = 0

  constructor(private readonly target: GroupCommitTarget) {}

  get failed(): StorageError | undefined {
    return this.failure
  }

  /** True while nothing written is waiting for an fsync (the active descriptor may then be released). */
  get isIdle(): boolean {
    return !this.failure && !this.flushing && !this.flushScheduled && this.waiters.length === 0 && this.durableSeq >= this.writeSeq
  }

  /** Resolves once the write just made (ending at `lastOffset`) is durable. */
  awaitDurable(lastOffset: number): Promise<void> {
    const seq = ++this.writeSeq
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq, lastOffset, resolve, reject })
      this.scheduleFlush()
    })
  }

  /** Resolves when everything written so far is durable. */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure
    if (this.durableSeq >= this.writeSeq) return
    await new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq: this.writeSeq, lastOffset: -1, resolve, reject })
      this.scheduleFlush()
    })
  }

  /** Everything written so far was fsync'd by the caller (roll, truncation, close): serve every waiter. */
  markAllDurable(endOffset?: number): void {
    this.markDurable(this.writeSeq, endOffset)
  }

  /**
   * The log was cut at `newEnd`: waiters whose data is at or after `removedFrom` reject, an fsync in flight no
   * longer vouches for the old end, and the new end is durable (the caller fsync'd the cut). A log emptied and
   * restarted at a higher offset passes -Infinity: every data waiter lost its data.
   */
  onTruncated(newEnd: number, removedFrom = newEnd): void {
    this.truncationGeneration++
    const kept: DurabilityWaiter[] = []
    for (const waiter of this.waiters) {
      if (waiter.lastOffset >= 0 && waiter.lastOffset >= removedFrom) waiter.reject(new StorageError('LOG_TRUNCATED', `offset ${waiter.lastOffset} was truncated before it became durable`))
      else kept.push(waiter)
    }
    this.waiters = kept
    this.markDurable(this.writeSeq)
    this.durableEndOffset = newEnd
  }

  /** Puts the log in the failed state: pending and future writes reject with `error` (the first one kept). */
  fail(error: StorageError): StorageError {
    this.failure ??= error
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure)
    return this.failure
  }

  /** Closes `fd` now, or after the fsync that may be using it. */
  retireFd(fd: number | undefined): void {
    if (fd === undefined) return
    this.fdsToClose.push(fd)
    if (!this.flushing) this.closeRetiredFds()
  }

  closeRetiredFds(): void {
    for (const fd of this.fdsToClose.splice(0)) {
      try {
        fs.closeSync(fd)
      } catch {
        // Already closed by a failure path; nothing else to release.
      }
    }
  }

  /**
   * Starts the next fdatasync at the end of the current synchronous section, so appends issued together share
   * it; while one runs, new appends wait for the next.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return
    this.flushScheduled = true
    queueMicrotask(() => {
      this.flushScheduled = false
      this.startFlush()
    })
  }

  private startFlush(): void {
    if (this.flushing || this.failure) return
    if (this.durableSeq >= this.writeSeq) {
      this.markDurable(this.durableSeq)
      return
    }
    const fd = this.target.activeFd()
    if (fd === undefined) return
    const seq = this.writeSeq
    const endOffset = this.target.logEndOffset()
    const generation = this.truncationGeneration
    this.flushing = true
    // A log nobody needs after a crash (skipSyncsUnder): durable as written. Still after the synchronous section,
    // as an fdatasync's callback would be.
    const datasync = syncsSkipped(this.target.activePath()) ? (_fd: number, done: (error: NodeJS.ErrnoException | null) => void) => queueMicrotask(() => done(null)) : fs.fdatasync
    datasync(fd, (error) => {
      this.flushing = false
      this.closeRetiredFds()
      if (error) {
        this.target.onFlushFailed(new StorageError('KAFKA_STORAGE_ERROR', `fdatasync of ${this.target.activePath()} failed`, { cause: error }))
        return
      }
      // A truncation during the fsync moved the end: the old end no longer says what is durable.
      this.markDurable(seq, generation === this.truncationGeneration ? endOffset : undefined)
      if (this.waiters.length > 0) this.startFlush()
      else this.target.onIdle()
    })
  }

  private markDurable(seq: number, endOffset?: number): void {
    if (seq > this.durableSeq) this.durableSeq = seq
    if (endOffset !== undefined && endOffset > this.durableEndOffset) this.durableEndOffset = endOffset
    while (this.waiters.length > 0 && this.waiters[0]!.seq <= this.durableSeq) this.waiters.shift()!.resolve()
  }
}
