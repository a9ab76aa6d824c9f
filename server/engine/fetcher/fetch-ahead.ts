import 'server-only'
import { splitBatches } from '@/lib/log/record-batch'
import type { FetchPartitionResult } from '@/server/cluster/ports'
import type { ClusterAccess, EngineClock, EngineLog, FetchSettings, PartitionDispatch, PartitionStore } from '../engine-context'
import type { EngineMirror } from '../state/engine-mirror'
import { applyAnswers } from './apply-answers'
import { isResponseCurrent, type FetchEntry } from './fetch-state'

/**
 * How long one round keeps fetching ahead. A source written as fast as it is mirrored would otherwise keep the round
 * going for ever, and the tick's other steps (wake-ups, the leadership check, syncs, lag samples) wait for it.
 */
export const FETCH_AHEAD_BUDGET_MS = 1000

type Ctx = ClusterAccess & EngineClock & EngineLog & FetchSettings & PartitionDispatch & PartitionStore

/**
 * A fetch answer applied while the next fetch of the same partitions is already at the source (issue #40), as
 * Kafka's replica fetcher keeps the leader busy: without it a round's source sat idle through the appends and the
 * destination through the fetch, describe and round trip before the next appends (a Kafka destination's appends
 * take most of a backlog drain, scripts/bench/kafka.ts).
 *
 * The fetch ahead asks each partition that got records from the offset its append will end at (the last batch's
 * last offset + 1: the destination's log is kept in source offsets). Its answer is only a read until it is applied,
 * and it is applied by the same path as any answer, under the partition's lock, after the append before it has
 * finished, and only if the partition is still where the fetch ahead assumed:
 * - the same state epoch it had when the round's first request was built, MIRRORING with its fetcher added (a pause,
 *   stop, STOPPING, failure or truncation meanwhile moves the epoch or the state: the answer is dropped, never
 *   appended later; `isResponseCurrent`);
 * - the destination's log end exactly at the offset fetched from (an append that failed or ended elsewhere drops it);
 * - no error and no divergence in the answer (the next round's own fetch finds those again, with the destination's
 *   own epoch: the fetch ahead's lastFetchedEpoch is the appended batches' epoch, a prediction).
 * Order within a partition is kept because a partition's next append starts only after its previous one returned.
 * The fetch ahead is a plain fetch with no wait: a caught-up partition answers at once, and the round ends.
 * Rounds stepped one by one (no wait at the source: tests, scripts) and throttled mirrors fetch one answer a round.
 */
export async function applyFetchingAhead(
  ctx: Ctx,
  mirror: EngineMirror,
  results: readonly FetchPartitionResult[],
  entryOf: (result: FetchPartitionResult, index: number) => FetchEntry | undefined,
  signal: AbortSignal,
  onApplied: (entries: FetchEntry[]) => void,
): Promise<void> {
  const { definition } = mirror
  if (ctx.fetchMaxWaitMs <= 0 || ctx.throttles.limits(definition)) {
    onApplied(await applyAnswers(ctx, mirror, results, entryOf))
    return
  }
  const source = ctx.clusters.cluster(definition.sourceCluster).source
  const started = ctx.now()
  let answers = results
  let entryOfAnswer = entryOf
  for (;;) {
    const ahead = signal.aborted || ctx.now() - started >= FETCH_AHEAD_BUDGET_MS || ctx.state.get(definition.name) !== mirror ? [] : aheadEntries(answers, entryOfAnswer)
    const fetchStarted = ctx.now()
    const fetching =
      ahead.length === 0
        ? null
        : source.fetch(
            ahead.map(({ request }) => request),
            { maxBytes: definition.config['fetch.response.max.bytes'], maxWaitMs: 0 },
          ).then(
            (fetched) => {
              // The fetch's own duration, not the appends it overlapped.
              mirror.throughput.fetched(ctx.now(), ctx.now() - fetchStarted)
              return fetched
            },
            (error: unknown) => {
              // Only a read failed: the next round's own fetch meets the source as it is and fails what it must.
              ctx.log('fetch ahead failed; the next round fetches again', { mirror: definition.name, error: String(error) })
              return null
            },
          )
    onApplied(await applyAnswers(ctx, mirror, answers, entryOfAnswer))
    if (fetching === null) return
    const fetched = await fetching
    // A mirror another instance took over meanwhile (releaseMirror) writes nothing more.
    if (fetched === null || fetched.length !== ahead.length || ctx.state.get(definition.name) !== mirror) return
    answers = fetched
    entryOfAnswer = (result, index) => {
      const entry = ahead[index]
      if (entry === undefined || entry.request.topic !== result.topic || entry.request.partition !== result.partition) return undefined
      if (!result.ok || result.divergingEpoch !== null) return undefined
      return entry
    }
  }
}

/**
 * The requests of a fetch ahead: each partition whose answer carries records to append, from where that append
 * will end, under the state epoch of the request it follows (not the partition's epoch when the answer comes: a
 * pause in between must drop it).
 */
function aheadEntries(results: readonly FetchPartitionResult[], entryOf: (result: FetchPartitionResult, index: number) => FetchEntry | undefined): FetchEntry[] {
  const ahead: FetchEntry[] = []
  for (const [index, result] of results.entries()) {
    if (!result.ok || result.records.byteLength === 0 || result.divergingEpoch !== null) continue
    const entry = entryOf(result, index)
    if (entry === undefined || !isResponseCurrent(entry) || entry.request.fetchOffset !== entry.runtime.destinationLogEndOffset) continue
    const batches = splitBatches(result.records)
    const last = batches.at(-1)
    if (last === undefined) continue
    const highestEpoch = batches.reduce((max, { header }) => Math.max(max, header.partitionLeaderEpoch), -1)
    // A batch above the destination's epoch is not appended (the epoch is bumped first): nothing to fetch ahead of.
    if (highestEpoch > entry.runtime.destinationLeaderEpoch) continue
    ahead.push({
      runtime: entry.runtime,
      stateEpoch: entry.stateEpoch,
      destinationLogStartOffset: entry.destinationLogStartOffset,
      request: { ...entry.request, fetchOffset: last.header.lastOffset + 1, lastFetchedEpoch: Math.max(entry.request.lastFetchedEpoch, highestEpoch) },
    })
  }
  return ahead
}
