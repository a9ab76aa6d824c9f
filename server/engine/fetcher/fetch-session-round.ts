import 'server-only'
import type { FetchPartitionResult, FetchSession, MirrorHost, PartitionDescription, TopicPartition } from '@/server/cluster/ports'
import { TimeSlice } from '@/server/util/cooperative'
import type { ClusterAccess, EngineClock, EngineLog, FetchSettings, PartitionDispatch, PartitionStore } from '../engine-context'
import { classifyUnreachableDestination, classifyUnreachableSource } from '../failure-classification'
import { dispatchAll } from '../runner/dispatch-all'
import type { EngineMirror } from '../state/engine-mirror'
import { changePartition } from '../state/partition-changes'
import type { PartitionRuntime } from '../types'
import { applyFetchingAhead } from './fetch-ahead'
import { interruptFetch, type FetchEntry } from './fetch-state'

/** Up to this many partitions of a topic to name in a round are described one by one; more, the whole topic at once. */
const DESCRIBE_ONE_BY_ONE_UP_TO = 32

interface Member {
  entry: FetchEntry
  leader: number
  session: FetchSession
}

/** A mirror's fetch sessions, one per source leader (a fetcher per broker), and what each holds. */
interface MirrorSessions {
  readonly byLeader: Map<number, FetchSession>
  readonly members: Map<PartitionRuntime, Member>
  /** Partitions whose answer was applied last round: their fetch position may have moved, they are named again. */
  readonly moved: Set<PartitionRuntime>
  readonly maxBytes: number
}

const sessionsByMirror = new WeakMap<EngineMirror, MirrorSessions>()

/** The mirror fetches in full (throttled), or has nothing to fetch: its sessions are closed at the source. */
export function closeFetchSessions(mirror: EngineMirror): void {
  const sessions = sessionsByMirror.get(mirror)
  if (!sessions) return
  for (const session of sessions.byLeader.values()) session.close()
  sessionsByMirror.delete(mirror)
}

/**
 * A fetch round over KIP-227 fetch sessions: the round names only the partitions that joined or whose
 * request changed (a new state epoch, a moved fetch position, a new leader, an error to clear, a destination
 * high watermark still behind its log end), forgets those that left, and applies only what the source
 * answers. A quiet 10,000-partition mirror then costs a pass of cheap comparisons per round, not a
 * description of 10,000 destination partitions and two passes over them at the source.
 */
export async function sessionFetchRound(ctx: ClusterAccess & EngineClock & EngineLog & FetchSettings & PartitionDispatch & PartitionStore, mirror: EngineMirror, runnable: readonly PartitionRuntime[], open: () => FetchSession): Promise<void> {
  const { definition } = mirror
  const maxBytes = definition.config['fetch.max.bytes']
  let state = sessionsByMirror.get(mirror)
  // A new fetch.max.bytes changes every request: a new session names them all.
  if (state && state.maxBytes !== maxBytes) closeFetchSessions(mirror)
  state = sessionsByMirror.get(mirror)
  if (!state) {
    state = { byLeader: new Map(), members: new Map(), moved: new Set(), maxBytes }
    sessionsByMirror.set(mirror, state)
  }
  for (const [leader, session] of state.byLeader) if (!session.isOpen) state.byLeader.delete(leader)

  const inRound = new Set(runnable)
  const forget = new Map<FetchSession, TopicPartition[]>()
  const slice = new TimeSlice()
  for (const [runtime, member] of state.members) {
    const turn = slice.maybeYield()
    if (turn) await turn
    const leader = mirror.sourceLeaders.get(runtime) ?? -1
    if (inRound.has(runtime) && member.leader === leader && state.byLeader.get(leader) === member.session) continue
    state.members.delete(runtime)
    if (!member.session.isOpen) continue
    const forgotten = forget.get(member.session)
    const tp = { topic: runtime.topic, partition: runtime.partition }
    if (forgotten) forgotten.push(tp)
    else forget.set(member.session, [tp])
  }
  const toName: PartitionRuntime[] = []
  for (const runtime of runnable) {
    const turn = slice.maybeYield()
    if (turn) await turn
    const member = state.members.get(runtime)
    if (
      member === undefined ||
      member.entry.stateEpoch !== runtime.value.stateEpoch ||
      state.moved.has(runtime) ||
      runtime.value.error !== null ||
      runtime.value.retryAttempt !== 0 ||
      runtime.destinationHighWatermark < runtime.destinationLogEndOffset
    ) {
      toName.push(runtime)
    }
  }
  state.moved.clear()

  const { host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  const descriptions = await describe(ctx, mirror, host, toName)
  const described = toName.filter((runtime) => descriptions.has(runtime))
  const latestEpochs = described.length === 0 ? [] : await host.latestEpochs(described.map((runtime) => ({ topic: runtime.topic, partition: runtime.partition })))
  const named = new Map<FetchSession, FetchEntry[]>()
  for (const [index, runtime] of described.entries()) {
    const description = descriptions.get(runtime)!
    changePartition(runtime, { destinationHighWatermark: description.highWatermark, destinationLogEndOffset: description.logEndOffset, destinationLeaderEpoch: description.leaderEpoch })
    const leader = mirror.sourceLeaders.get(runtime) ?? -1
    let session = state.byLeader.get(leader)
    if (!session) state.byLeader.set(leader, (session = open()))
    const entry: FetchEntry = {
      runtime,
      stateEpoch: runtime.value.stateEpoch,
      destinationLogStartOffset: description.logStartOffset,
      request: { topic: runtime.topic, partition: runtime.partition, fetchOffset: description.logEndOffset, lastFetchedEpoch: latestEpochs[index]!, maxBytes },
    }
    state.members.set(runtime, { entry, leader, session })
    const entries = named.get(session)
    if (entries) entries.push(entry)
    else named.set(session, [entry])
  }

  // A leader's session none of the mirror's partitions is in any more (they moved to another leader, or left
  // the round) is closed after the round, its forgets unsent: closing forgets everything.
  const inUse = new Set<FetchSession>()
  for (const member of state.members.values()) inUse.add(member.session)
  const emptied: FetchSession[] = []
  for (const [leader, session] of state.byLeader) {
    if (inUse.has(session)) continue
    state.byLeader.delete(leader)
    emptied.push(session)
  }
  const sessions = new Set([...state.byLeader.values(), ...forget.keys()].filter((session) => session.isOpen && !emptied.includes(session)))
  if (sessions.size === 0) {
    for (const session of emptied) session.close()
    return
  }
  // The first answer ends the other sessions' waits, as in the full round (fetch-round.ts).
  const interrupt = new AbortController()
  mirror.fetchInterrupt = interrupt
  try {
    await Promise.all(
      [...sessions].map((session) =>
        fetchFromSession(ctx, mirror, state, session, named.get(session) ?? [], forget.get(session) ?? [], interrupt.signal).finally(() => interruptFetch(interrupt)),
      ),
    )
  } finally {
    if (mirror.fetchInterrupt === interrupt) mirror.fetchInterrupt = null
    for (const session of emptied) session.close()
  }
}

async function fetchFromSession(
  ctx: ClusterAccess & EngineClock & EngineLog & FetchSettings & PartitionDispatch & PartitionStore,
  mirror: EngineMirror,
  state: MirrorSessions,
  session: FetchSession,
  named: FetchEntry[],
  forget: TopicPartition[],
  signal: AbortSignal,
): Promise<void> {
  const { definition } = mirror
  let results: FetchPartitionResult[]
  const started = ctx.now()
  try {
    results = await session.fetch({ partitions: named.map(({ request }) => request), forget }, { maxBytes: definition.config['fetch.response.max.bytes'], maxWaitMs: ctx.fetchMaxWaitMs, signal })
    mirror.throughput.fetched(ctx.now(), ctx.now() - started)
  } catch (error) {
    mirror.throughput.fetched(ctx.now(), ctx.now() - started)
    // As a full fetch that throws: every partition of this source leader failed; the session starts over.
    const failure = classifyUnreachableSource(error)
    session.close()
    const members = [...state.members.values()].filter((member) => member.session === session)
    for (const { entry } of members) state.members.delete(entry.runtime)
    for (const { entry } of members) {
      await ctx.runner.withLock(entry.runtime, () => ctx.runner.dispatch(definition, entry.runtime, { type: 'failed', ...failure }, 'source unreachable'))
    }
    return
  }
  // Every partition of the session was fetched just now; those left out of the answer are as they were.
  const now = ctx.now()
  for (const member of state.members.values()) if (member.session === session) changePartition(member.entry.runtime, { lastFetchAt: now })
  if (results.length === 0) return
  // The next fetch of the partitions that got records goes out while these are appended (fetch-ahead.ts): a plain
  // fetch beside the session, whose partitions it moved are named again next round.
  const entryOf = (result: FetchPartitionResult) => {
    const runtime = mirror.partitions.get(result)
    const member = runtime === undefined ? undefined : state.members.get(runtime)
    return member?.session === session ? member.entry : undefined
  }
  await applyFetchingAhead(ctx, mirror, results, entryOf, signal, (applied) => {
    for (const entry of applied) state.moved.add(entry.runtime)
  })
}

/** The destination's description of each partition to name: one by one for a few of a topic, else the whole topic. */
/**
 * The destination's view of the partitions to name. One the destination cannot describe (its cluster is
 * unreachable) fails with retries and stays out of the round; the others go on.
 */
async function describe(ctx: ClusterAccess & EngineClock & EngineLog & FetchSettings & PartitionDispatch & PartitionStore, mirror: EngineMirror, host: MirrorHost, runtimes: readonly PartitionRuntime[]): Promise<Map<PartitionRuntime, PartitionDescription>> {
  const destinationCluster = mirror.definition.destinationCluster
  const unreachable: Array<{ runtimes: PartitionRuntime[]; error: unknown }> = []
  const byTopic = new Map<string, PartitionRuntime[]>()
  for (const runtime of runtimes) {
    const list = byTopic.get(runtime.topic)
    if (list) list.push(runtime)
    else byTopic.set(runtime.topic, [runtime])
  }
  const descriptions = new Map<PartitionRuntime, PartitionDescription>()
  for (const [topic, list] of byTopic) {
    if (list.length > DESCRIBE_ONE_BY_ONE_UP_TO) {
      const topics = await host.describeTopics([topic]).catch((error: unknown) => {
        unreachable.push({ runtimes: list, error })
        return null
      })
      if (topics === null) continue
      ctx.clusters.rememberDestinationTopics(destinationCluster, topics)
      const byPartition: Array<PartitionDescription | undefined> = []
      for (const partition of topics[0]?.partitions ?? []) byPartition[partition.partition] = partition
      for (const runtime of list) {
        const description = byPartition[runtime.partition]
        if (description) descriptions.set(runtime, description)
      }
      continue
    }
    for (const runtime of list) {
      try {
        descriptions.set(runtime, await host.describePartition({ topic, partition: runtime.partition }))
      } catch (error) {
        // Not on the destination (yet): left out of the round, as a full round leaves it out.
        if (!isNotFound(error)) unreachable.push({ runtimes: [runtime], error })
      }
    }
  }
  for (const { runtimes: failed, error } of unreachable) await dispatchAll(ctx, mirror, failed, { type: 'failed', ...classifyUnreachableDestination(error) })
  return descriptions
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'NOT_FOUND'
}
