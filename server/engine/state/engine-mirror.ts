import 'server-only'
import type { LagHistory } from '@/lib/mirror/lag'
import { ThroughputMeter } from '@/lib/mirror/throughput'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { PartitionTimer } from '../runner/partition-timer'
import type { MirrorDefinition, PartitionRuntime } from '../types'

/**
 * What failed in a periodic sync: the source's metadata did not answer, a topic's configs could not be copied,
 * the group offsets could not be synced, starting discovered topics failed, or another step threw.
 */
export type SyncErrorKind = 'sourceUnreachable' | 'topicConfigSync' | 'groupOffsetSync' | 'topicStart' | 'other'

export function countSyncError(mirror: EngineMirror, kind: SyncErrorKind): void {
  mirror.syncErrors.set(kind, (mirror.syncErrors.get(kind) ?? 0) + 1)
}

/** The in-memory side of one mirror: its definition, its partitions and what the tick keeps between rounds. */
export interface EngineMirror {
  definition: MirrorDefinition
  /** Source leader of each partition as last described; fetches are grouped by it. */
  sourceLeaders: TopicPartitionMap<number>
  partitions: TopicPartitionMap<PartitionRuntime>
  nextSyncAt: number
  /** Consecutive syncs a mirrored topic was missing on the source (two in a row fail it for good). */
  missingTopicSyncs: Map<string, number>
  /**
   * Partitions whose fetch found no such topic or partition at the source, and until when they sit out the fetch
   * rounds (Kafka's fetcher delays them by fetch.backoff.ms); meanwhile the metadata decides: deleted or back.
   */
  fetchDelays: TopicPartitionMap<number>
  mirroredRecords: number
  mirroredBytes: number
  /** Failed syncs since the server started, by kind (the `mirrorboard_sync_errors_total` counter). */
  syncErrors: Map<SyncErrorKind, number>
  /** Records and bytes per second, fetch durations and throttle use, sampled with the lag (lib/mirror/throughput.ts). */
  throughput: ThroughputMeter
  lastLagSampleAt: number
  lagHistory: TopicPartitionMap<LagHistory>
  /** Spans of time when some partition's lag was not known (a lower bound or nothing), oldest first; `to` null while open. */
  lagUnknown: Array<{ from: number; to: number | null }>
  /** The minute being aggregated for the lag archive: each lagging partition's worst sample. */
  /** The current minute's worst lag per partition, whether any lag was sampled and whether any was unknown (lag-sampler.ts). */
  lagMinute: { t: number; worst: TopicPartitionMap<[string, number, number, number | null]>; sampled: boolean; unknown: boolean }
  /** Ends the fetch round waiting at the source: a partition joined or left the fetcher. */
  fetchInterrupt: AbortController | null
  /** Partitions with a retry, a restore or a convergence check pending, by due time (RunnerEnvironment.wakeUp). */
  timer: PartitionTimer
}

export function newEngineMirror(definition: MirrorDefinition, now: number): EngineMirror {
  return {
    definition,
    sourceLeaders: new TopicPartitionMap(),
    partitions: new TopicPartitionMap(),
    nextSyncAt: now,
    missingTopicSyncs: new Map(),
    fetchDelays: new TopicPartitionMap(),
    mirroredRecords: 0,
    mirroredBytes: 0,
    syncErrors: new Map(),
    throughput: new ThroughputMeter(),
    lastLagSampleAt: 0,
    lagHistory: new TopicPartitionMap(),
    lagUnknown: [],
    lagMinute: { t: 0, worst: new TopicPartitionMap(), sampled: false, unknown: false },
    fetchInterrupt: null,
    timer: new PartitionTimer(),
  }
}
