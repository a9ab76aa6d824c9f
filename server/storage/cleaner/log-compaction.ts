import 'server-only'
import { StorageError } from '@/lib/log/errors'
import type { AbortedTransaction } from '@/lib/log/types'
import type { ProducerStateManager } from '@/lib/log/producer-state'
import type { LogSegments } from '../log-segments'
import type { ResolvedConfig } from '../partition-log-config'
import { deleteProducerSnapshots } from '../producer-snapshots'
import type { LogSegment } from '../segment'
import { cleanableRange, cleanLog, type CleanOutcome, type CleanTarget, type SegmentGroup } from './cleaner'
import { compacts } from './cleaner-config'
import { swapInCleanedSegment } from './segment-swap'

/** What a log's compaction needs of the log (server/storage/partition-log.ts). */
export interface CompactedLog {
  readonly dir: string
  segments(): LogSegments
  /** Open and not failed: a pass's writes are refused otherwise. */
  usable(): boolean
  logStartOffset(): number
  lastStableOffset(): number
  abortedTransactions(fromOffset: number, toOffset: number): AbortedTransaction[]
  producers(): ReturnType<ProducerStateManager['entries']>
  config(): ResolvedConfig
  writeCleanerOffset(offset: number): void
  /** Marks the log failed (KAFKA_STORAGE_ERROR) and returns the error to throw. */
  fail(error: StorageError): StorageError
}

/**
 * One log's side of compaction (Kafka's LogCleanerManager state for a partition, and the cleaner's hooks into
 * UnifiedLog): the cleaner checkpoint, the delete horizon the last pass left, the structure version a pass
 * checks before its swap, and the one pass at a time. The log tells it what its own writes did to offsets.
 */
export class LogCompaction {
  /** Bumped whenever segments are removed or cut, so a cleaning pass started before knows to give up. */
  private structureVersion = 0
  /** The earliest delete horizon the last pass left in the log: a pass after it drops tombstones. */
  private nextDeleteHorizonMs: number | undefined
  private cleaning: Promise<CleanOutcome> | undefined

  constructor(
    private readonly log: CompactedLog,
    /** The cleaner checkpoint: offsets below it are clean. */
    private firstDirtyOffset: number,
  ) {}

  /** Segments were removed or cut (truncation, retention, delete-records, a policy change, close). */
  segmentsChanged(): void {
    this.structureVersion++
  }

  truncatedTo(logEndOffset: number): void {
    this.firstDirtyOffset = Math.min(this.firstDirtyOffset, logEndOffset)
  }

  emptiedAt(offset: number): void {
    this.firstDirtyOffset = offset
  }

  logStartAdvanced(offset: number): void {
    this.firstDirtyOffset = Math.max(this.firstDirtyOffset, offset)
  }

  /** Resolves once no pass runs (a pass in flight gives up at its next slice once the structure changed). */
  async passEnded(): Promise<void> {
    await this.cleaning?.catch(() => undefined)
  }

  state(): { dirtyRatio: number; minCleanableDirtyRatio: number; deleteHorizonDue: boolean } {
    const target = this.target()
    const range = cleanableRange(target)
    return {
      dirtyRatio: range.totalBytes === 0 ? 0 : range.dirtyBytes / range.totalBytes,
      minCleanableDirtyRatio: this.log.config().minCleanableDirtyRatio,
      deleteHorizonDue: target.deleteHorizonDue(),
    }
  }

  compact(): Promise<CleanOutcome> {
    const config = this.log.config()
    if (!compacts(config.cleanupPolicy)) return Promise.resolve({ kind: 'nothing-to-clean' })
    // One pass at a time: a second caller shares the running one.
    this.cleaning ??= cleanLog(this.target(), { offsetMapCapacity: config.cleaner.offsetMapCapacity, sliceMs: config.cleaner.sliceMs }).finally(() => {
      this.cleaning = undefined
    })
    return this.cleaning
  }

  /** The log as the cleaner sees it: read access plus the two writes a pass makes (the swap and its checkpoint). */
  private target(): CleanTarget {
    const log = this.log
    return {
      dir: log.dir,
      segments: () => log.segments(),
      structureVersion: () => (log.usable() ? this.structureVersion : -1),
      logStartOffset: () => log.logStartOffset(),
      lastStableOffset: () => log.lastStableOffset(),
      firstDirtyOffset: () => this.firstDirtyOffset,
      deleteHorizonDue: () => this.nextDeleteHorizonMs !== undefined && this.nextDeleteHorizonMs <= log.config().now(),
      abortedTransactions: (from, to) => log.abortedTransactions(from, to),
      activeProducers: () => {
        const out = new Map<number, { lastDataOffset: number | null; producerEpoch: number }>()
        for (const e of log.producers()) out.set(e.producerId, { lastDataOffset: e.batches.at(-1)?.lastOffset ?? null, producerEpoch: e.producerEpoch })
        return out
      },
      config: () => log.config(),
      swapCleanedSegment: (group, cleaned, retainedAborted, version) => this.swapCleanedSegment(group, cleaned, retainedAborted, version),
      completePass: (firstDirtyOffset, nextDeleteHorizonMs) => {
        if (!log.usable()) return
        this.firstDirtyOffset = Math.max(this.firstDirtyOffset, firstDirtyOffset)
        this.nextDeleteHorizonMs = nextDeleteHorizonMs
        try {
          log.writeCleanerOffset(this.firstDirtyOffset)
        } catch (cause) {
          throw log.fail(new StorageError('KAFKA_STORAGE_ERROR', `writing the cleaner checkpoint of ${log.dir} failed`, { cause }))
        }
      },
    }
  }

  /**
   * Replaces a group of sealed segments by its cleaned copy in one synchronous step, so a reader sees either the
   * old segments or the new one. Refused when the log was truncated, trimmed or closed since the pass began.
   */
  private swapCleanedSegment(group: SegmentGroup, cleaned: LogSegment, retainedAborted: AbortedTransaction[], version: number): boolean {
    const log = this.log
    if (!log.usable() || version !== this.structureVersion) return false
    try {
      swapInCleanedSegment(log.dir, group.baseOffset, group.endOffset)
      cleaned.aborted = retainedAborted.sort((a, b) => a.lastOffset - b.lastOffset)
      cleaned.writeIndexFiles()
      log.segments().replace(group.firstIndex, group.count, cleaned)
      deleteProducerSnapshots(log.dir, (o) => o > group.baseOffset && o < group.endOffset)
      return true
    } catch (cause) {
      throw log.fail(new StorageError('KAFKA_STORAGE_ERROR', `swapping cleaned segment ${group.baseOffset} of ${log.dir} failed`, { cause }))
    }
  }
}
