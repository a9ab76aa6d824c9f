import { StorageError } from './errors'
import type { EpochEndOffset, EpochEntry } from './types'
import { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from './types'

/**
 * The leader-epoch cache of one partition replica (Kafka's LeaderEpochFileCache, without the file):
 *
 * - Leader epoch = the epoch a batch was written in (its partitionLeaderEpoch).
 * - Start offset = offset of the first batch of that epoch in this log.
 *
 * Entries are strictly increasing in both epoch and start offset. An epoch, once assigned, keeps its start
 * offset while later entries exist; assigning an entry that breaks monotonicity drops the conflicting
 * newer entries (that history was overwritten). Negative input is a programming error (RangeError).
 */
export class LeaderEpochCache {
  private list: EpochEntry[]

  constructor(entries: readonly EpochEntry[] = []) {
    this.list = []
    for (const e of entries) this.assign(e.epoch, e.startOffset)
  }

  entries(): EpochEntry[] {
    return this.list.map((e) => ({ ...e }))
  }

  get isEmpty(): boolean {
    return this.list.length === 0
  }

  /** Latest epoch with data, or -1 when empty. */
  latestEpoch(): number {
    return this.list.at(-1)?.epoch ?? UNDEFINED_EPOCH
  }

  latestEntry(): EpochEntry | undefined {
    const last = this.list.at(-1)
    return last && { ...last }
  }

  /**
   * Records that `epoch` starts at `startOffset`. Returns true when the cache changed. A no-op when the
   * epoch is already the latest one with an equal or earlier start (the common case: every batch of an
   * epoch calls this).
   */
  assign(epoch: number, startOffset: number): boolean {
    if (!Number.isInteger(epoch) || epoch < 0 || !Number.isInteger(startOffset) || startOffset < 0) {
      throw new RangeError(`invalid leader epoch entry (${epoch}, ${startOffset})`)
    }
    const latest = this.list.at(-1)
    if (latest && latest.epoch === epoch && startOffset >= latest.startOffset) return false
    while (this.list.length > 0) {
      const last = this.list.at(-1)!
      if (last.epoch >= epoch || last.startOffset >= startOffset) this.list.pop()
      else break
    }
    this.list.push({ epoch, startOffset })
    return true
  }

  /** Removes entries starting at or after `endOffset` (the log was truncated to `endOffset`). */
  truncateFromEnd(endOffset: number): boolean {
    let changed = false
    while (this.list.length > 0 && this.list.at(-1)!.startOffset >= endOffset) {
      this.list.pop()
      changed = true
    }
    return changed
  }

  /**
   * The log now starts at `startOffset`: entries starting at or before it collapse into one entry for the
   * latest of those epochs, moved to `startOffset` (Kafka's truncateFromStart).
   */
  truncateFromStart(startOffset: number): boolean {
    let lastRemoved: EpochEntry | undefined
    let removed = 0
    while (removed < this.list.length && this.list[removed]!.startOffset <= startOffset) {
      lastRemoved = this.list[removed]
      removed++
    }
    if (lastRemoved === undefined) return false
    if (removed === 1 && lastRemoved.startOffset === startOffset) return false
    this.list.splice(0, removed, { epoch: lastRemoved.epoch, startOffset })
    return true
  }

  clear(): boolean {
    const changed = this.list.length > 0
    this.list = []
    return changed
  }

  /**
   * OffsetsForLeaderEpoch (KIP-101/KIP-279), exactly as Kafka's `endOffsetFor`:
   * - requested -1, or above every cached epoch, or an empty cache → (-1, -1);
   * - requested == latest epoch → (epoch, logEndOffset): the epoch is still being written;
   * - otherwise the largest cached epoch ≤ requested, ending where the next higher epoch starts;
   * - requested below the first cached epoch → (requested, start of the first epoch): the data of older
   *   epochs is gone (retention or a full truncation) and the follower must not keep anything beyond where
   *   this log's known history starts.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEndOffset {
    const undefinedResult = { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET }
    if (requestedEpoch === UNDEFINED_EPOCH || this.list.length === 0) return undefinedResult
    if (this.latestEpoch() === requestedEpoch) return { leaderEpoch: requestedEpoch, endOffset: logEndOffset }
    const higherIndex = this.list.findIndex((e) => e.epoch > requestedEpoch)
    if (higherIndex < 0) return undefinedResult
    const higher = this.list[higherIndex]!
    if (higherIndex === 0) return { leaderEpoch: requestedEpoch, endOffset: higher.startOffset }
    return { leaderEpoch: this.list[higherIndex - 1]!.epoch, endOffset: higher.startOffset }
  }

  /** Epoch of the batch holding `offset` (the latest entry starting at or before it), or -1. */
  epochForOffset(offset: number): number {
    let epoch = UNDEFINED_EPOCH
    for (const e of this.list) {
      if (e.startOffset <= offset) epoch = e.epoch
      else break
    }
    return epoch
  }
}

/** Kafka's checkpoint text format: version line, count line, one `epoch startOffset` line per entry. */
export function formatEpochCheckpoint(entries: readonly EpochEntry[]): string {
  return `0\n${entries.length}\n${entries.map((e) => `${e.epoch} ${e.startOffset}\n`).join('')}`
}

/** Parses a `leader-epoch-checkpoint`; throws CORRUPT_RECORD on any malformed line. */
export function parseEpochCheckpoint(text: string): EpochEntry[] {
  return parseCheckpointLines(text, 2).map(([epoch, startOffset]) => ({ epoch: epoch!, startOffset: startOffset! }))
}

/**
 * Parses Kafka's checkpoint layout ("0", count, then `count` lines of `fieldsPerLine` integers).
 * Used for the epoch checkpoint and the single-value offset checkpoints.
 */
export function parseCheckpointLines(text: string, fieldsPerLine: number): number[][] {
  const { lines, bad } = checkpointEntryLines(text, 'checkpoint file')
  return lines.map((line) => {
    const fields = line.trim().split(/\s+/).map(Number)
    if (fields.length !== fieldsPerLine || fields.some((f) => !Number.isSafeInteger(f))) throw bad(`line ${JSON.stringify(line)}`)
    return fields
  })
}

/**
 * The entry lines of a file in Kafka's checkpoint layout (version `0`, the entry count, the entries), checked
 * against the count; `bad` makes the CORRUPT_RECORD error for an entry the caller cannot read.
 */
export function checkpointEntryLines(text: string, what: string): { lines: string[]; bad: (why: string) => StorageError } {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const bad = (why: string) => new StorageError('CORRUPT_RECORD', `malformed ${what}: ${why}`)
  if (lines[0] !== '0') throw bad(`unsupported version ${JSON.stringify(lines[0])}`)
  const count = Number(lines[1])
  if (!Number.isInteger(count) || count < 0 || lines.length !== count + 2) throw bad('entry count does not match')
  return { lines: lines.slice(2), bad }
}

/** A single-offset checkpoint (log start offset, high watermark) in the same layout: `0`, `1`, `offset`. */
export function formatOffsetCheckpoint(offset: number): string {
  return `0\n1\n${offset}\n`
}

export function parseOffsetCheckpoint(text: string): number {
  const [line] = parseCheckpointLines(text, 1)
  if (!line) throw new StorageError('CORRUPT_RECORD', 'malformed checkpoint file: no offset')
  return line[0]!
}
