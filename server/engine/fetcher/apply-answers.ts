import 'server-only'
import type { FetchPartitionResult } from '@/server/cluster/ports'
import { forEachConcurrently, TimeSlice } from '@/server/util/cooperative'
import { PARTITION_CONCURRENCY, type ClusterAccess, type EngineClock, type EngineLog, type PartitionDispatch, type PartitionStore } from '../engine-context'
import { classifyAppendError } from '../failure-classification'
import type { EngineMirror } from '../state/engine-mirror'
import { interruptFetch, isQuietFetch, recordSourcePosition, type FetchEntry } from './fetch-state'
import { applyFetchResult } from './partition-response'

/**
 * A fetch's answers applied: the quiet ones recorded without the partition lock, the others (records, a
 * divergence, an error) applied with it, side by side. Returns the entries that were applied (their
 * partitions' fetch positions may have moved).
 */
export async function applyAnswers(
  ctx: ClusterAccess & EngineClock & EngineLog & PartitionDispatch & PartitionStore,
  mirror: EngineMirror,
  results: readonly FetchPartitionResult[],
  entryOf: (result: FetchPartitionResult, index: number) => FetchEntry | undefined,
): Promise<FetchEntry[]> {
  const { definition } = mirror
  const slice = new TimeSlice()
  const busy: Array<{ entry: FetchEntry; result: FetchPartitionResult }> = []
  // Read once per answer: the quiet partitions of one answer were all fetched at the same moment.
  const now = ctx.now()
  for (const [index, result] of results.entries()) {
    const turn = slice.maybeYield()
    if (turn) await turn
    const entry = entryOf(result, index)
    if (entry === undefined) continue
    if (!result.ok && result.error.code === 'NOT_LEADER_OR_FOLLOWER') mirror.nextSyncAt = now
    if (isQuietFetch(entry, result)) {
      // Most partitions of a large mirror have nothing new each round: record what the source said and
      // move on, without the partition lock, a destination lookup or a promise per partition.
      recordSourcePosition(entry.runtime, result, now)
    } else {
      busy.push({ entry, result })
    }
  }
  // Data moved: the other mirrors' rounds stop waiting at their sources too, so that an idle mirror's long
  // poll never holds a busy one's next round (each mirror's round is awaited by the same tick).
  if (busy.length > 0) {
    for (const other of ctx.state.all()) if (other !== mirror) interruptFetch(other.fetchInterrupt)
  }
  // Partitions are independent: their appends run side by side and share the destination's fsyncs,
  // a bounded number at once (each holds its log's descriptor until its fsync is done).
  await forEachConcurrently(busy, PARTITION_CONCURRENCY, ({ entry, result }) =>
    ctx.runner.withLock(entry.runtime, async () => {
      try {
        await applyFetchResult(ctx, mirror, entry, result)
      } catch (error) {
        const failure = classifyAppendError(error)
        await ctx.runner.dispatch(definition, entry.runtime, { type: 'failed', ...failure }, 'applying a fetch failed')
      }
    }),
  )
  return busy.map(({ entry }) => entry)
}
