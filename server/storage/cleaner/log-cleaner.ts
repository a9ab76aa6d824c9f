import 'server-only'
import type { CleanOutcome } from './cleaner'

/** A compacted log as the background cleaner sees it. */
export interface CleanableLog {
  readonly dir: string
  /** Dirty bytes / cleanable bytes now, and whether a delete horizon the last pass left has passed. */
  cleanerState(): { dirtyRatio: number; minCleanableDirtyRatio: number; deleteHorizonDue: boolean }
  /** One cleaning pass in bounded slices. */
  compact(): Promise<CleanOutcome>
}

export interface LogCleanerOptions {
  /** Kafka `log.cleaner.backoff.ms`: the pause when no log needs cleaning. Default 15 s. */
  backoffMs?: number
  /** Distinct keys one pass can deduplicate (Kafka sizes this by `log.cleaner.dedupe.buffer.size`). Default 2,000,000. */
  offsetMapCapacity?: number
  /** Synchronous work between two yields to the event loop. Default 5 ms. */
  sliceMs?: number
}

/**
 * Kafka's LogCleaner with one cleaner thread: the registered compacted logs are checked every `backoffMs`; the
 * filthiest one at or above its `min.cleanable.dirty.ratio` (or whose tombstones' delete horizon has passed)
 * is cleaned, then the next, until none qualifies. One pass at a time per cleaner, each in slices, so the
 * process keeps serving while it runs. The timer never keeps the process alive.
 */
export class LogCleaner {
  readonly offsetMapCapacity: number
  readonly sliceMs: number
  private readonly backoffMs: number
  private readonly logs = new Set<CleanableLog>()
  private timer: NodeJS.Timeout | undefined
  private running = false
  private stopped = false

  constructor(options: LogCleanerOptions = {}) {
    this.backoffMs = options.backoffMs ?? 15_000
    this.offsetMapCapacity = options.offsetMapCapacity ?? 2_000_000
    this.sliceMs = options.sliceMs ?? 5
    for (const [name, value] of Object.entries({ backoffMs: this.backoffMs, offsetMapCapacity: this.offsetMapCapacity, sliceMs: this.sliceMs })) {
      if (!Number.isFinite(value) || value <= 0) throw new RangeError(`log cleaner ${name} must be positive, got ${value}`)
    }
  }

  register(log: CleanableLog): void {
    this.logs.add(log)
    this.schedule(this.backoffMs)
  }

  unregister(log: CleanableLog): void {
    this.logs.delete(log)
  }

  /** Stops the background checks (tests, shutdown); a pass already running finishes. */
  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.timer = undefined
  }

  /** The log the next check would clean, if any (Kafka's grabFilthiestCompactedLog). */
  filthiestLog(): CleanableLog | undefined {
    let best: { log: CleanableLog; ratio: number } | undefined
    for (const log of this.logs) {
      const state = log.cleanerState()
      const eligible = (state.dirtyRatio > 0 && state.dirtyRatio >= state.minCleanableDirtyRatio) || state.deleteHorizonDue
      if (eligible && (!best || state.dirtyRatio > best.ratio)) best = { log, ratio: state.dirtyRatio }
    }
    return best?.log
  }

  /** Cleans until no registered log qualifies; returns how many passes ran. */
  async cleanUntilIdle(): Promise<number> {
    let passes = 0
    const cleanedThisRound = new Set<CleanableLog>()
    for (;;) {
      const log = this.filthiestLog()
      // A log whose pass changed nothing stays eligible (e.g. everything is latest already): once per round.
      if (!log || cleanedThisRound.has(log)) return passes
      cleanedThisRound.add(log)
      await log.compact()
      passes++
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.timer || this.running) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.check()
    }, delayMs)
    this.timer.unref()
  }

  private async check(): Promise<void> {
    this.running = true
    try {
      await this.cleanUntilIdle()
    } catch {
      // A failed pass leaves the log as it was (the swap is atomic); the log reports storage failures itself.
    } finally {
      this.running = false
      if (this.logs.size > 0) this.schedule(this.backoffMs)
    }
  }
}

/** Shared by every compacted partition log of the process unless a log is given its own. */
export const processLogCleaner = new LogCleaner()
