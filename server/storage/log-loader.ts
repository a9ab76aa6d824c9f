import 'server-only'
import fs from 'node:fs'
import { unlink } from 'node:fs/promises'
import path from 'node:path'
import { LeaderEpochCache } from '@/lib/log/leader-epoch-cache'
import { ProducerStateManager, type ProducerStateSnapshot } from '@/lib/log/producer-state'
import type { BatchHeader } from '@/lib/log/types'
import { fsyncDirectory, syncDirectory, unlinkIfExists } from '@/server/util/durable-file'
import { completeInterruptedSwaps } from './cleaner/segment-swap'
import { crc32c } from './crc32c'
import type { CleanShutdownMarker, EpochCheckpoint, LogCheckpoints } from './log-checkpoints'
import type { LogCloseState } from './types'
import { replayLog } from './log-replay'
import { LogSegments } from './log-segments'
import { deleteProducerSnapshots, latestProducerSnapshot, listProducerSnapshotOffsets, readProducerSnapshot } from './producer-snapshots'
import { LOG_SUFFIX, LogSegment, offsetFileName, parseOffsetFileName, PRODUCER_SNAPSHOT_SUFFIX } from './segment'

export interface LoaderConfig {
  indexIntervalBytes: number
  now: () => number
  /** The owner's checkpointed high watermark for this replica; null: the log's own checkpoint file. */
  checkpointedHighWatermark?: number | null
  /** What a clean close's files would say, from the memory of the log these files were copied from (LogCloseState). */
  closeState?: LogCloseState | null
}

/** Everything a partition log holds in memory, as recovered from its directory. */
export interface LoadedLog {
  segments: LogSegments
  logStartOffset: number
  highWatermark: number
  checkpointedHighWatermark: number
  epochCache: LeaderEpochCache
  producerState: ProducerStateManager
  /**
   * Always true: the log's directory (a new log's files, or an existing one's recovery: the clean-shutdown
   * marker removed, leftovers deleted) is not fsynced yet, and the caller does it before the log takes any
   * write. Opening many logs (a topic's creation, a cluster's start, a drill's sandbox) then runs those fsyncs
   * side by side, off the event loop, instead of one synchronous fsync after another.
   */
  directoryUnsynced: true
  /**
   * Files this open has done with (the clean-shutdown marker, producer snapshots other than the segments' bases),
   * removed by the caller with the directory's fsync, before the log takes any write: 2,000 synchronous unlinks
   * of ~1 ms each were most of reopening a drill's sandbox, on the event loop.
   */
  leftovers: string[]
}

/** How the active segment is known to be whole: vouched for by a clean close, or scanned and cut. */
type ActiveSegmentState = { kind: 'clean-shutdown' } | { kind: 'recovered' }

/** What the sealed segments' index files told us. */
type SealedIndexState = { kind: 'intact' } | { kind: 'txn-index-lost' }

/**
 * How producer state and the aborted-transaction indexes are rebuilt (Kafka's LogLoader + rebuildProducerState):
 * - `clean-snapshot`: a clean close wrote a snapshot at the log end; nothing to replay.
 * - `replay-after-clean`: clean close, but that snapshot is gone: replay from the newest segment-base snapshot;
 *   the aborted indexes on disk are complete.
 * - `replay-active`: after a crash: replay from the newest snapshot at or below the active segment, rebuilding
 *   the active segment's aborted index (sealed segments have theirs on disk).
 * - `full-replay`: a transaction index or the epoch checkpoint was unreadable: replay the whole log, rebuild
 *   every aborted index and rewrite the sealed segments' index files.
 */
type ProducerStateRecovery =
  | { kind: 'clean-snapshot'; snapshot: ProducerStateSnapshot }
  | { kind: 'replay-after-clean' }
  | { kind: 'replay-active' }
  | { kind: 'full-replay' }

/** The one decision of recovery, from what the files said. Pure. */
export function chooseProducerStateRecovery(
  active: ActiveSegmentState,
  sealed: SealedIndexState,
  epochs: 'ok' | 'unreadable',
  snapshotAtLogEnd: () => ProducerStateSnapshot | undefined,
): ProducerStateRecovery {
  if (sealed.kind === 'txn-index-lost' || epochs === 'unreadable') return { kind: 'full-replay' }
  if (active.kind === 'recovered') return { kind: 'replay-active' }
  const snapshot = snapshotAtLogEnd()
  return snapshot ? { kind: 'clean-snapshot', snapshot } : { kind: 'replay-after-clean' }
}

/**
 * Opens or recovers the log in `dir` (Kafka's LogLoader): leftovers of interrupted writes and cleanings first,
 * then the sealed segments (index files, or a rebuild), the active segment (trusted after a clean close, else
 * scanned and cut at the first torn or corrupt batch), the log start, the epoch cache and high watermark from
 * their checkpoints, and producer state as `chooseProducerStateRecovery` says.
 */
export function loadLog(dir: string, checkpoints: LogCheckpoints, config: LoaderConfig): LoadedLog {
  // A copy's close state stands for the files a clean close writes; the marker still checks itself against the
  // active segment (size, end offset), and the log is recovered as after a crash when it does not match.
  const copied = config.closeState ?? null
  // A copy (log-copy.ts) holds only the files it named — segments, their indexes, the snapshots at their bases,
  // the checkpoints — in a directory it made: no torn temp file, no cleaner swap, no snapshot past its end or off
  // a segment base, no clean-shutdown marker. Its open skips looking for them: three directory listings, a
  // lookup and an unlink of a marker that is not there, per log, were a third of opening a drill's 2,000 logs.
  if (!copied) prepareDirectory(dir)
  const cleanMarker = copied ? copied.cleanShutdown : checkpoints.readCleanShutdown()
  const checkpointedLogStart = copied ? copied.logStartOffset : checkpoints.readLogStartOffset()
  const { segments } = openSegments(dir, checkpointedLogStart ?? 0, config.now())

  const sealed = loadSealedSegments(segments, config.indexIntervalBytes)
  const active = loadActiveSegment(segments.active, cleanMarker, config.indexIntervalBytes, copied?.activeIndexes)

  const logEnd = segments.active.nextOffset
  const firstBase = segments.first.baseOffset
  const logStartOffset = Math.min(Math.max(checkpointedLogStart ?? firstBase, firstBase), logEnd)
  for (const doomed of segments.removeFirst(segments.countWhollyBelow(logStartOffset))) doomed.deleteFiles()

  const epochCheckpoint: EpochCheckpoint = copied ? { status: 'ok', entries: copied.epochs.map((entry) => ({ ...entry })) } : checkpoints.readEpochs()
  const epochCache = new LeaderEpochCache(epochCheckpoint.status === 'ok' ? epochCheckpoint.entries : [])
  epochCache.truncateFromEnd(logEnd)
  epochCache.truncateFromStart(logStartOffset)

  const checkpointedHighWatermark = config.checkpointedHighWatermark ?? checkpoints.readHighWatermark() ?? 0
  const highWatermark = Math.min(Math.max(checkpointedHighWatermark, logStartOffset), logEnd)

  if (!copied) deleteProducerSnapshots(dir, (o) => o > logEnd)
  const recovery = chooseProducerStateRecovery(active, sealed, epochCheckpoint.status, () => (copied?.producerState.offset === logEnd ? copied.producerState : readProducerSnapshot(dir, logEnd)))
  const producerState = recoverProducerState(dir, segments, recovery, { epochCache, highWatermark })
  producerState.onHighWatermarkUpdated(highWatermark)
  // Keep one snapshot per segment base (truncation and recovery start from those); others were for this open.
  const segmentBases = new Set(segments.all().map((s) => s.baseOffset))
  const leftovers = copied
    ? []
    : listProducerSnapshotOffsets(dir)
        .filter((o) => !segmentBases.has(o))
        .map((o) => path.join(dir, offsetFileName(o, PRODUCER_SNAPSHOT_SUFFIX)))

  segments.active.openWriter()
  // Any later crash must recover by scanning again: the marker goes, durably, before the first new write.
  if (!copied) leftovers.push(checkpoints.cleanShutdownPath())
  return { segments, logStartOffset, highWatermark, checkpointedHighWatermark, epochCache, producerState, directoryUnsynced: true, leftovers }
}

/** Creates the directory, removes torn temp files and finishes or discards an interrupted cleaner swap. */
function prepareDirectory(dir: string): void {
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true })
    fsyncDirectory(path.dirname(dir))
  }
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith('.tmp')) unlinkIfExists(path.join(dir, name))
  }
  completeInterruptedSwaps(dir)
}

function openSegments(dir: string, emptyLogStart: number, now: number): { segments: LogSegments; created: boolean } {
  const bases = fs
    .readdirSync(dir)
    .map((name) => parseOffsetFileName(name, LOG_SUFFIX))
    .filter((o): o is number => o !== undefined)
    .sort((a, b) => a - b)
  if (bases.length === 0) {
    // Its directory entry is made durable once, by PartitionLog.open, before the log takes any write: two
    // synchronous directory fsyncs per new log were most of creating a 10,000-partition RF 3 mirror's topics.
    const first = LogSegment.create(dir, emptyLogStart, now)
    return { segments: new LogSegments([first]), created: true }
  }
  const segments = new LogSegments(
    bases.map((base) => {
      const segment = new LogSegment(dir, base, now)
      segment.size = fs.statSync(segment.logPath).size
      return segment
    }),
  )
  return { segments, created: false }
}

/** Sealed segments were fsync'd before the next one was created: their bytes are whole, only index files may be missing. */
function loadSealedSegments(segments: LogSegments, indexIntervalBytes: number): SealedIndexState {
  let state: SealedIndexState = { kind: 'intact' }
  for (const segment of segments.inactive()) {
    const { indexesOk, txnIndexOk } = segment.loadIndexFiles()
    if (indexesOk) {
      findSegmentEnd(segment)
    } else {
      segment.reloadStatsByScan(indexIntervalBytes)
      segment.sealTimeIndex()
      if (txnIndexOk) segment.writeIndexFiles()
    }
    if (!txnIndexOk) state = { kind: 'txn-index-lost' }
  }
  return state
}

function loadActiveSegment(active: LogSegment, clean: CleanShutdownMarker | undefined, indexIntervalBytes: number, copiedIndexes?: LogCloseState['activeIndexes']): ActiveSegmentState {
  if (clean && clean.activeBaseOffset === active.baseOffset && clean.activeSize === active.size) {
    const { indexesOk, txnIndexOk } = copiedIndexes ? active.loadIndexBytes(copiedIndexes.index, copiedIndexes.timeIndex, () => copiedIndexes.txnIndex ?? undefined) : active.loadIndexFiles()
    if (indexesOk && txnIndexOk) {
      findSegmentEnd(active)
      if (active.nextOffset === clean.logEndOffset) return { kind: 'clean-shutdown' }
    }
  }
  recoverSegment(active, indexIntervalBytes)
  return { kind: 'recovered' }
}

function recoverProducerState(
  dir: string,
  segments: LogSegments,
  recovery: ProducerStateRecovery,
  state: { epochCache: LeaderEpochCache; highWatermark: number },
): ProducerStateManager {
  const logEnd = segments.active.nextOffset
  const firstKept = segments.first.baseOffset
  const replayFromSnapshot = (collectAbortedFrom: number): ProducerStateManager => {
    const snapshot = latestProducerSnapshot(dir, segments.active.baseOffset)
    const producerState = snapshot ? ProducerStateManager.fromSnapshot(snapshot) : new ProducerStateManager()
    replayLog(segments, { ...state, producerState }, Math.max(snapshot?.offset ?? firstKept, firstKept), logEnd, collectAbortedFrom)
    return producerState
  }
  switch (recovery.kind) {
    case 'clean-snapshot':
      return ProducerStateManager.fromSnapshot(recovery.snapshot)
    case 'replay-after-clean':
      return replayFromSnapshot(logEnd)
    case 'replay-active':
      segments.active.aborted = []
      return replayFromSnapshot(segments.active.baseOffset)
    case 'full-replay': {
      for (const segment of segments.all()) segment.aborted = []
      const producerState = new ProducerStateManager()
      replayLog(segments, { ...state, producerState }, firstKept, logEnd, firstKept)
      for (const segment of segments.inactive()) segment.writeIndexFiles()
      return producerState
    }
  }
}

/** Sets `nextOffset` of a segment whose indexes were loaded: scans the headers after the last index entry. */
function findSegmentEnd(segment: LogSegment): void {
  const start = segment.offsetIndex.lookup(Number.MAX_SAFE_INTEGER)
  segment.nextOffset = segment.baseOffset
  let last: BatchHeader | undefined
  let lastPosition = 0
  const outcome = segment.scan(start, segment.size, {}, (header, position) => {
    last = header
    lastPosition = position
  })
  if (outcome.error) throw outcome.error
  if (last) {
    segment.nextOffset = last.lastOffset + 1
    segment.bytesSinceLastIndexEntry = lastPosition + last.sizeInBytes - start
  }
}

/**
 * Kafka's recovery of the tail: validate every batch (length, magic, CRC32C, offsets increasing from the
 * segment base) and cut the file at the first bad one; rebuild the in-memory indexes.
 */
function recoverSegment(segment: LogSegment, indexIntervalBytes: number): void {
  segment.resetStats()
  let expected = segment.baseOffset
  let validEnd = 0
  segment.scan(0, segment.size, { crc32c }, (header, position) => {
    if (header.baseOffset < expected) return false
    segment.onBatchAppended(header, position, indexIntervalBytes)
    expected = header.lastOffset + 1
    validEnd = position + header.sizeInBytes
    return true
  })
  if (validEnd < segment.size) segment.truncateToPosition(validEnd)
}

/** Removes the load's leftovers (already gone is fine), then fsyncs the directory: open() awaits it before any write. */
export async function settleLoadedDirectory(dir: string, leftovers: readonly string[]): Promise<void> {
  await Promise.all(leftovers.map((file) => unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error
  })))
  await syncDirectory(dir)
}
