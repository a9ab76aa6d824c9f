import 'server-only'
import type { LeaderEpochCache } from '@/lib/log/leader-epoch-cache'
import { ProducerStateManager } from '@/lib/log/producer-state'
import { readControlInfo } from '@/lib/log/record-batch'
import type { BatchHeader, ControlInfo } from '@/lib/log/types'
import type { LogSegments } from './log-segments'
import { latestProducerSnapshot } from './producer-snapshots'
import type { LogSegment } from './segment'

/** The in-memory state a batch in the log contributes to (Kafka's UnifiedLog.updateProducers + epoch assign). */
export interface BatchState {
  epochCache: LeaderEpochCache
  producerState: ProducerStateManager
  highWatermark: number
}

/**
 * Applies a batch that is in the log (appended, replicated or replayed) to the epoch cache, producer state and,
 * when `collectAborted`, the segment's aborted-transaction index.
 */
export function applyBatch(state: BatchState, segment: LogSegment, header: BatchHeader, control: ControlInfo | undefined, collectAborted: boolean): void {
  if (header.partitionLeaderEpoch >= 0 && header.partitionLeaderEpoch > state.epochCache.latestEpoch()) {
    state.epochCache.assign(header.partitionLeaderEpoch, header.baseOffset)
  }
  if (header.producerId < 0 && !header.isControl) return
  const applied = state.producerState.apply({ ...header, control }, state.highWatermark)
  if (collectAborted && applied.completed?.isAborted) {
    const { producerId, firstOffset, lastOffset } = applied.completed
    segment.aborted.push({ producerId, firstOffset, lastOffset, lastStableOffset: applied.lastStableOffset ?? lastOffset + 1 })
  }
}

/**
 * Replays [from, to) of the log into `state`; aborted transactions whose marker is at or after
 * `collectAbortedFrom` are added to their segment's index. A control batch the cleaner emptied (its marker
 * record removed, the batch kept for its producer epoch) is applied as an unknown control batch.
 */
export function replayLog(segments: LogSegments, state: BatchState, from: number, to: number, collectAbortedFrom: number): void {
  for (const segment of segments.all()) {
    if (segment.nextOffset <= from || segment.baseOffset >= to) continue
    const start = from > segment.baseOffset ? (segment.findBatch(from)?.position ?? segment.size) : 0
    const outcome = segment.scan(start, segment.size, { needsBytes: (h) => h.isControl }, (header, _position, bytes) => {
      if (header.baseOffset >= to) return false
      applyBatch(state, segment, header, header.isControl && bytes ? controlInfoOrUnknown(bytes, header) : undefined, header.baseOffset >= collectAbortedFrom)
      return true
    })
    if (outcome.error) throw outcome.error
  }
}

function controlInfoOrUnknown(bytes: Uint8Array, header: BatchHeader): ControlInfo {
  try {
    return readControlInfo(bytes, header)
  } catch {
    return { typeId: -1, type: 'CONTROL' }
  }
}

/** Producer state at `endOffset`: the newest snapshot at or below it plus a replay of the rest (aborted indexes untouched). */
export function rebuildProducerState(dir: string, segments: LogSegments, epochCache: LeaderEpochCache, highWatermark: number, endOffset: number): ProducerStateManager {
  const snapshot = latestProducerSnapshot(dir, endOffset)
  const producerState = snapshot ? ProducerStateManager.fromSnapshot(snapshot) : new ProducerStateManager()
  const from = Math.max(snapshot?.offset ?? 0, segments.first.baseOffset)
  replayLog(segments, { epochCache, producerState, highWatermark }, from, endOffset, Number.POSITIVE_INFINITY)
  return producerState
}
