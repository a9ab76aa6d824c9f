import 'server-only'
import { changedSourceClusterId } from './source-cluster-id'
import { dispatchAll } from '../runner/dispatch-all'
import type { FetchPartitionResult, TopicDescription } from '@/server/cluster/ports'
import { TimeSlice, yieldToEventLoop } from '@/server/util/cooperative'
import { type ClusterAccess, type EngineClock, type EngineLog, type FetchSettings, type PartitionDispatch, type PartitionStore } from '../engine-context'
import { classifyUnreachableDestination, classifyUnreachableSource } from '../failure-classification'
import type { EngineMirror } from '../state/engine-mirror'
import { changePartition } from '../state/partition-changes'
import { interruptFetch, isFetchDelayed, isReadyForFetch, type FetchEntry } from './fetch-state'
import { closeFetchSessions, sessionFetchRound } from './fetch-session-round'
import { applyFetchingAhead } from './fetch-ahead'
import { inFetchOrder, recordFetchOrder } from './fetch-order'

type DescribedPartition = TopicDescription['partitions'][number]

/**
 * One fetch round: the MIRRORING partitions are grouped by their source leader and each group is one
 * fetch (many partitions, bounded bytes), all groups at once, as a fetcher per source broker would.
 */
export async function fetchRound(ctx: ClusterAccess & EngineClock & EngineLog & FetchSettings & PartitionDispatch & PartitionStore, mirror: EngineMirror): Promise<void> {
  const now = ctx.now()
  const runnable = [...mirror.partitions.values()].filter((runtime) => isReadyForFetch(runtime) && !isFetchDelayed(mirror, runtime, now))
  if (runnable.length === 0) return closeFetchSessions(mirror)
  const { definition } = mirror
  const { host, source } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  // #35: another cluster behind the source's address fails the mirror before anything of it is fetched.
  const changedClusterId = await changedSourceClusterId(definition, source)
  if (changedClusterId) return dispatchAll(ctx, mirror, [...mirror.partitions.values()], { type: 'sourceClusterIdChanged', ...changedClusterId })
  // KIP-227: a source with fetch sessions is asked only about what changed (fetch-session-round.ts). Sessions
  // serve held fetches (a running server's rounds); rounds stepped one by one without a wait fetch in full,
  // every request visible at the port. A throttled mirror narrows its requests every round, which a
  // session's held requests cannot follow.
  if (source.openFetchSession && ctx.fetchMaxWaitMs > 0 && !ctx.throttles.limits(definition)) return sessionFetchRound(ctx, mirror, runnable, source.openFetchSession.bind(source))
  closeFetchSessions(mirror)
  const topics = [...new Set(runnable.map((runtime) => runtime.topic))]
  // A topic at a time, with turns of the event loop between: describing 10,000 partitions in one call
  // holds the loop for tens of milliseconds. Kept by topic, then by partition number: a round looks up
  // every mirrored partition, and a string key per lookup costs more than the rest of a quiet partition.
  const descriptions = new Map<string, Array<DescribedPartition | undefined>>()
  for (const topic of topics) {
    // A destination that does not answer (a Kafka cluster whose broker is down) fails the topic's partitions with retries.
    const destination = await host.describeTopics([topic]).catch(async (error: unknown) => {
      await dispatchAll(ctx, mirror, runnable.filter((runtime) => runtime.topic === topic), { type: 'failed', ...classifyUnreachableDestination(error) })
      return []
    })
    ctx.clusters.rememberDestinationTopics(definition.destinationCluster, destination)
    for (const described of destination) {
      const byPartition: Array<DescribedPartition | undefined> = []
      for (const partition of described.partitions) byPartition[partition.partition] = partition
      descriptions.set(described.name, byPartition)
    }
    await yieldToEventLoop()
  }
  const described = runnable.filter((runtime) => descriptions.get(runtime.topic)?.[runtime.partition] !== undefined)
  const latestEpochs = await host.latestEpochs(described.map((runtime) => ({ topic: runtime.topic, partition: runtime.partition })))
  const byLeader = new Map<number, FetchEntry[]>()
  const slice = new TimeSlice()
  for (const [index, runtime] of described.entries()) {
    const turn = slice.maybeYield()
    if (turn) await turn
    const description = descriptions.get(runtime.topic)![runtime.partition]!
    changePartition(runtime, { destinationHighWatermark: description.highWatermark, destinationLogEndOffset: description.logEndOffset, destinationLeaderEpoch: description.leaderEpoch })
    const entry: FetchEntry = {
      runtime,
      stateEpoch: runtime.value.stateEpoch,
      destinationLogStartOffset: description.logStartOffset,
      request: { topic: runtime.topic, partition: runtime.partition, fetchOffset: description.logEndOffset, lastFetchedEpoch: latestEpochs[index]!, maxBytes: definition.config['fetch.max.bytes'] },
    }
    const leader = mirror.sourceLeaders.get(runtime) ?? -1
    const group = byLeader.get(leader)
    if (group) group.push(entry)
    else byLeader.set(leader, [entry])
  }
  // Each source leader's fetch may wait for data; the first answer ends the others' waits, so the next
  // round starts as soon as any partition has moved (a fetcher per broker, in one round).
  const interrupt = new AbortController()
  mirror.fetchInterrupt = interrupt
  try {
    await Promise.all([...byLeader].map(([leader, entries]) => fetchFromLeader(ctx, mirror, leader, entries, interrupt.signal).finally(() => interruptFetch(interrupt))))
  } finally {
    if (mirror.fetchInterrupt === interrupt) mirror.fetchInterrupt = null
  }
}

async function fetchFromLeader(ctx: ClusterAccess & EngineClock & EngineLog & FetchSettings & PartitionDispatch & PartitionStore, mirror: EngineMirror, leader: number, leaderEntries: FetchEntry[], signal: AbortSignal): Promise<void> {
  const { definition } = mirror
  const source = ctx.clusters.cluster(definition.sourceCluster).source
  // Replication throttle (replication-throttle.ts): throttled partitions sit out or get a smaller budget.
  // The order rotates past the partitions that got records last time (fetch-order.ts), so none starves.
  const entries = inFetchOrder(mirror, leader, ctx.throttles.admit(definition, leaderEntries, ctx.now()))
  if (entries.length === 0) return
  let results: FetchPartitionResult[]
  const started = ctx.now()
  try {
    results = await source.fetch(
      entries.map(({ request }) => request),
      { maxBytes: definition.config['fetch.response.max.bytes'], maxWaitMs: ctx.fetchMaxWaitMs, signal },
    )
    mirror.throughput.fetched(ctx.now(), ctx.now() - started)
    ctx.throttles.record(definition, entries, results, ctx.now())
    recordFetchOrder(mirror, leader, entries, results)
  } catch (error) {
    mirror.throughput.fetched(ctx.now(), ctx.now() - started)
    const failure = classifyUnreachableSource(error)
    for (const { runtime } of entries) {
      await ctx.runner.withLock(runtime, () => ctx.runner.dispatch(definition, runtime, { type: 'failed', ...failure }, 'source unreachable'))
    }
    return
  }
  if (results.length !== entries.length) throw new Error(`the source answered ${results.length} partitions of a fetch for ${entries.length}`)
  // Results come in the order of the requests (SourceCluster.fetch); a mismatch would be a port bug.
  // The next fetch of the partitions that got records goes out while these are appended (fetch-ahead.ts).
  const entryOf = (result: FetchPartitionResult, index: number): FetchEntry => {
    const entry = entries[index]!
    if (entry.request.topic !== result.topic || entry.request.partition !== result.partition) {
      throw new Error(`the source answered ${result.topic}-${result.partition} for ${entry.request.topic}-${entry.request.partition}`)
    }
    return entry
  }
  await applyFetchingAhead(ctx, mirror, results, entryOf, signal, () => undefined)
}
