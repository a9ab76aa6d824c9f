import 'server-only'
import { MIRROR_CONFIG_DEFAULTS } from '@/lib/mirror/constants'
import type { FetchPartitionRequest, FetchPartitionResult } from '@/server/cluster/ports'
import type { EngineMirror } from '../state/engine-mirror'
import { changePartition } from '../state/partition-changes'
import type { PartitionRuntime } from '../types'

/** One partition's place in a fetch round: what was asked, and what the partition was when it was asked. */
export interface FetchEntry {
  runtime: PartitionRuntime
  request: FetchPartitionRequest
  stateEpoch: number
  /** The destination's log start offset when the request was built: a source start above it is synced. */
  destinationLogStartOffset: number
}

export type FetchedPartition = Extract<FetchPartitionResult, { ok: true }>

/** The partition is in a fetch round: MIRRORING with its fetcher added (the table's startFetcher effect). */
export function isReadyForFetch(runtime: PartitionRuntime): boolean {
  return runtime.fetching && runtime.value.state === 'MIRRORING'
}

/**
 * The source answered that it does not know the partition's topic: the partition sits out the fetch rounds for
 * fetch.backoff.ms, and the metadata is read at the next tick (the periodic sync), which fails the topic for good
 * once it is missing there twice in a row, or finds it back. Not FAILED meanwhile: a deleted topic is not a
 * fetch error to retry with backoff, as Kafka's fetcher does not fail such a partition either.
 */
export function delayUnknownTopic(mirror: EngineMirror, runtime: PartitionRuntime, now: number): void {
  mirror.fetchDelays.set(runtime, now + MIRROR_CONFIG_DEFAULTS['fetch.backoff.ms'])
  mirror.nextSyncAt = Math.min(mirror.nextSyncAt, now)
}

/** Whether the partition sits out this round (delayUnknownTopic); a delay that has passed is forgotten. */
export function isFetchDelayed(mirror: EngineMirror, runtime: PartitionRuntime, now: number): boolean {
  const until = mirror.fetchDelays.get(runtime)
  if (until === undefined) return false
  if (now < until) return true
  mirror.fetchDelays.delete(runtime)
  return false
}

/**
 * An answer may be applied only if the partition is still where it was when the request was built. While it
 * was in flight the partition may have been stopped, paused, truncated, or failed and retried (a new state
 * epoch); appending then could land data after the STOPPING markers, or at an offset we no longer hold.
 */
export function isResponseCurrent(entry: FetchEntry): boolean {
  return isReadyForFetch(entry.runtime) && entry.runtime.value.stateEpoch === entry.stateEpoch
}

/** An answer with no records, no divergence and nothing for the partition to act on. */
export function isQuietFetch(entry: FetchEntry, result: FetchPartitionResult): result is FetchedPartition {
  const { runtime } = entry
  return (
    result.ok &&
    result.records.byteLength === 0 &&
    result.divergingEpoch === null &&
    result.logStartOffset <= entry.destinationLogStartOffset &&
    isResponseCurrent(entry) &&
    runtime.value.error === null &&
    runtime.value.retryAttempt === 0 &&
    entry.request.fetchOffset === runtime.destinationLogEndOffset
  )
}

/** What a successful fetch tells about the source: its high watermark and the age of what is not mirrored yet. */
export function recordSourcePosition(runtime: PartitionRuntime, result: FetchedPartition, now: number): void {
  changePartition(runtime, { sourceHighWatermark: result.highWatermark, oldestUnmirroredTimestamp: result.nextRecordTimestamp, lastFetchAt: now })
}

/**
 * Ends a waiting fetch round, once: abort()'s default reason is a new DOMException, with a stack, built on
 * every call, and a flap of 50,000 partitions called it once per state change.
 */
export function interruptFetch(interrupt: AbortController | null | undefined): void {
  if (interrupt && !interrupt.signal.aborted) interrupt.abort()
}
