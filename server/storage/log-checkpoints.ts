import 'server-only'
import path from 'node:path'
import { formatEpochCheckpoint, formatOffsetCheckpoint, parseEpochCheckpoint, parseOffsetCheckpoint } from '@/lib/log/leader-epoch-cache'
import type { EpochEntry } from '@/lib/log/types'
import { readFileIfExists, writeFileDurably, writeFileDurablyAsync, type DurableFileWrite } from '@/server/util/durable-file'

export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint'
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint'
export const HIGH_WATERMARK_CHECKPOINT_FILE = 'high-watermark-checkpoint'
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint'
export const CLEAN_SHUTDOWN_FILE = 'clean-shutdown'

/** What a clean close vouches for: the active segment as it was then, so open can skip the scan. */
export interface CleanShutdownMarker {
  logEndOffset: number
  activeBaseOffset: number
  activeSize: number
}

/** Result of reading the leader-epoch checkpoint: a torn or unparsable file is not an empty cache. */
export type EpochCheckpoint = { status: 'ok'; entries: EpochEntry[] } | { status: 'unreadable' }

/**
 * The small checkpoint files of one partition directory, in Kafka's checkpoint text format (version line, count,
 * entries). Each is replaced atomically (tmp, fsync, rename, fsync of the directory), so a crash leaves the old
 * or the new content, never a mix.
 */
export class LogCheckpoints {
  constructor(readonly dir: string) {}

  private file(name: string): string {
    return path.join(this.dir, name)
  }

  readLogStartOffset(): number | undefined {
    return this.readOffset(LOG_START_OFFSET_CHECKPOINT_FILE)
  }

  writeLogStartOffset(offset: number): void {
    writeFileDurably(this.file(LOG_START_OFFSET_CHECKPOINT_FILE), formatOffsetCheckpoint(offset))
  }

  readHighWatermark(): number | undefined {
    return this.readOffset(HIGH_WATERMARK_CHECKPOINT_FILE)
  }

  writeHighWatermark(offset: number): void {
    writeFileDurably(this.file(HIGH_WATERMARK_CHECKPOINT_FILE), formatOffsetCheckpoint(offset))
  }

  /** Background variant for the lazy HW checkpoint: a lost write only means a lower HW after a crash. */
  writeHighWatermarkAsync(offset: number): Promise<void> {
    return writeFileDurablyAsync(this.file(HIGH_WATERMARK_CHECKPOINT_FILE), formatOffsetCheckpoint(offset), { logWrite: true })
  }

  /** Kafka's `cleaner-offset-checkpoint` (kept per partition here): the first offset the cleaner has not cleaned. */
  readCleanerOffset(): number | undefined {
    return this.readOffset(CLEANER_OFFSET_CHECKPOINT_FILE)
  }

  writeCleanerOffset(offset: number): void {
    writeFileDurably(this.file(CLEANER_OFFSET_CHECKPOINT_FILE), formatOffsetCheckpoint(offset))
  }

  readEpochs(): EpochCheckpoint {
    try {
      const text = readFileIfExists(this.file(LEADER_EPOCH_CHECKPOINT_FILE))
      return { status: 'ok', entries: text === undefined ? [] : parseEpochCheckpoint(text.toString('utf8')) }
    } catch {
      return { status: 'unreadable' }
    }
  }

  writeEpochs(entries: EpochEntry[]): void {
    writeFileDurably(this.file(LEADER_EPOCH_CHECKPOINT_FILE), formatEpochCheckpoint(entries))
  }

  /** The files a clean close writes, for one batch of durable writes (their order within it does not matter). */
  epochsFile(entries: EpochEntry[]): DurableFileWrite {
    return { file: this.file(LEADER_EPOCH_CHECKPOINT_FILE), data: formatEpochCheckpoint(entries) }
  }

  highWatermarkFile(offset: number): DurableFileWrite {
    return { file: this.file(HIGH_WATERMARK_CHECKPOINT_FILE), data: formatOffsetCheckpoint(offset) }
  }

  /** Written last, alone, once everything it vouches for is durable. */
  cleanShutdownFile(marker: CleanShutdownMarker): DurableFileWrite {
    return { file: this.file(CLEAN_SHUTDOWN_FILE), data: JSON.stringify(marker) }
  }

  readCleanShutdown(): CleanShutdownMarker | undefined {
    const bytes = readFileIfExists(this.file(CLEAN_SHUTDOWN_FILE))
    if (bytes === undefined) return undefined
    try {
      const parsed = JSON.parse(bytes.toString('utf8')) as Partial<CleanShutdownMarker>
      if (typeof parsed.logEndOffset === 'number' && typeof parsed.activeBaseOffset === 'number' && typeof parsed.activeSize === 'number') {
        return { logEndOffset: parsed.logEndOffset, activeBaseOffset: parsed.activeBaseOffset, activeSize: parsed.activeSize }
      }
    } catch {
      // A torn marker means an unclean shutdown.
    }
    return undefined
  }

  /** The clean-shutdown marker's path (a log's open removes it, with its directory's fsync, before any write). */
  cleanShutdownPath(): string {
    return this.file(CLEAN_SHUTDOWN_FILE)
  }

  private readOffset(name: string): number | undefined {
    const bytes = readFileIfExists(this.file(name))
    if (bytes === undefined) return undefined
    try {
      return parseOffsetCheckpoint(bytes.toString('utf8'))
    } catch {
      return undefined
    }
  }
}
