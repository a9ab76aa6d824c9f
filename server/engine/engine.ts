import 'server-only'
// Over 400 lines on purpose: still the engine's facade plus fetch round, syncs, commands and failover; issue #18 splits it into fetcher/, preparing/, syncs/, commands/, failover/, queries/ — work in progress.
import { splitBatches } from '@/lib/log/record-batch'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
export { DEFAULT_MIRROR_CONFIG } from './config/mirror-config'
import type { MirrorEvent } from '@/lib/mirror/events'
import { decideGates } from '@/lib/failover/gate-forcing'
import { buildFailoverPlan, type ConsumerGroupPosition, type FailoverPartitionInput, type FailoverPlan } from '@/lib/mirror/failover-plan'
import { needsProactiveEpochBump } from '@/lib/mirror/guards'
import { findMirrorLoop, reverseMirrorVerdict } from '@/lib/mirror/mirror-loop'
import { TopicPartitionMap, topicPartitionName } from '@/lib/mirror/topic-partition'
import { LagHistory, offsetLag as computeOffsetLag, timeLagMs as computeTimeLag, type LagPoint } from '@/lib/mirror/lag'
import type { MirrorCommand } from '@/lib/mirror/preconditions'
import { type MirrorEventType, type MirrorPartitionState } from '@/lib/mirror/states'
import { createMirrorPartition, type TransitionContext } from '@/lib/mirror/transition'
import { truncationPlan, type TruncationPlanInput } from '@/lib/mirror/truncation'
import type {
  FetchPartitionRequest,
  FetchPartitionResult,
  HostedMirror,
  LastMirrorPosition,
  MirrorHost,
  SourceCluster,
  TopicDescription,
  TopicPartition,
} from '@/server/cluster/ports'
import { isClusterError } from '@/server/cluster/errors'
import { planOrRefuse, planStartOrRefuse, runtimeStates, withSkipped, type CommandResult } from './commands/preconditions'
import { assertName, resolveConfig, syncedTopicConfigs } from './config/mirror-config'
import { compilePattern, matchesAny, matchesFilters } from './config/topic-patterns'
import { EngineError, mirrorLoopRefusal } from './errors'
import { gateRefusal } from './failover-gates'
import type { LagArchive } from './lag-archive'
import { forEachConcurrently, TimeSlice, yieldToEventLoop } from '@/server/util/cooperative'
import { JsonTemplate, jsonTemplate, templateOf } from '@/server/util/json-template'
import { toFailoverPlan } from './operations/failover-plan-view'
import { OperationStore } from './operations/operation-store'
import { OperationTracker, type OperationFilter } from './operations/operation-tracker'
import { classifyAppendError, PartitionRunner, type RunnerEnvironment } from './partition-runner'
import { newPartitionRuntime } from './partition-runtime'
import { compareSnapshots } from './snapshot'
import { ReplicationThrottles } from './fetcher/replication-throttle'
import { changedSourceClusterId } from './fetcher/source-cluster-id'
import { LeadershipWatch } from './leadership-watch'
import { restoredPartition } from './state-fencing'
import { MirrorStateStore } from './state-store'
import type { EngineEvent, MirrorConfig, MirrorDefinition, Operation, OperationRequester, PartitionRuntime, PartitionSnapshot, TruncationPlanResult } from './types'

/** How the engine reaches clusters; chosen once at the composition root. */
export interface EngineClusterAccess {
  names(): string[]
  get(name: string): { source: SourceCluster; host: MirrorHost } | undefined
}

export interface EngineOptions {
  clusters: EngineClusterAccess
  /** Injected so tests step time; epoch milliseconds. */
  now?: () => number
  /** Injected so retry jitter is deterministic in tests; returns [0, 1). */
  random?: () => number
  log?: (message: string, fields: Record<string, unknown>) => void
  /** Where downsampled lag history is persisted; without one, history lives in memory only. */
  lagArchive?: LagArchive
  /** Fault injection around each STOPPING action (crash tests, demo scenarios). */
  onStoppingAction?: RunnerEnvironment['onStoppingAction']
  /**
   * How long a fetch round may wait at the source for something new (replica.fetch.wait.max.ms). The
   * server waits, so a caught-up mirror of 10,000 partitions is not polled ten times a second; tests
   * step a manual clock and leave it at 0.
   */
  fetchMaxWaitMs?: number
  /**
   * Where operations are kept (opened by the composition root before the engine starts); without one they
   * live in memory only and do not survive a restart.
   */
  operationStore?: OperationStore
}

export interface CreateMirrorInput {
  name: string
  sourceCluster: string
  destinationCluster: string
  topics?: string[]
  topicsInclude?: string[]
  topicsExclude?: string[]
  config?: Partial<MirrorConfig>
}

const LAG_SAMPLE_INTERVAL_MS = 1_000
/**
 * Partitions worked on at once by sweeps (start, stop, epoch checks): enough that their durable writes
 * share fsyncs, few enough that one sweep does not queue every partition's promise at once.
 */
const PARTITION_CONCURRENCY = 128
const FAILOVER_CONCURRENCY = 256
/** Calls to a source that may be down are bounded, so a disaster never hangs the engine. */
const SOURCE_CALL_TIMEOUT_MS = 10_000

interface FetchEntry {
  runtime: PartitionRuntime
  request: FetchPartitionRequest
  stateEpoch: number
  /** The destination's log start offset when the request was built: a source start above it is synced. */
  destinationLogStartOffset: number
}

interface MirrorRuntime {
  definition: MirrorDefinition
  /** Source leader of each partition as last described; fetches are grouped by it. */
  sourceLeaders: TopicPartitionMap<number>
  partitions: TopicPartitionMap<PartitionRuntime>
  nextSyncAt: number
  /** Consecutive syncs a mirrored topic was missing on the source (two in a row fail it for good). */
  missingTopicSyncs: Map<string, number>
  mirroredRecords: number
  mirroredBytes: number
  lastLagSampleAt: number
  lagHistory: TopicPartitionMap<LagHistory>
  /** The minute being aggregated for the lag archive: each lagging partition's worst sample. */
  lagMinute: { t: number; worst: TopicPartitionMap<[string, number, number, number | null]> }
  /** Ends the fetch round waiting at the source: a partition joined or left the fetcher. */
  fetchInterrupt: AbortController | null
  /** Partitions with a retry, a restore or a convergence check pending (RunnerEnvironment.needsAttention). */
  attention: Set<PartitionRuntime>
}

/**
 * Ends a waiting fetch round, once: abort()'s default reason is a new DOMException, with a stack, built on
 * every call, and a flap of 50,000 partitions called it once per state change.
 */
function interruptFetch(interrupt: AbortController | null | undefined): void {
  if (interrupt && !interrupt.signal.aborted) interrupt.abort()
}

/** What a successful fetch tells about the source: its high watermark and the age of what is not mirrored yet. */
function recordSourcePosition(runtime: PartitionRuntime, result: Extract<FetchPartitionResult, { ok: true }>, now: number): void {
  runtime.sourceHighWatermark = result.highWatermark
  runtime.oldestUnmirroredTimestamp = result.nextRecordTimestamp
  runtime.lastFetchAt = now
}

/**
 * The destination-side engine of KIP-1279. It keeps one runtime per mirror partition, drives each
 * through the transition table (lib/mirror) with a PartitionRunner, fetches for MIRRORING partitions
 * and runs the periodic syncs. `tick()` is one deterministic iteration; `startBackground()` runs ticks
 * on a timer in the server.
 */
export class MirrorEngine {
  private readonly clusters: EngineClusterAccess
  private readonly now: () => number
  private readonly random: () => number
  private readonly log: (message: string, fields: Record<string, unknown>) => void
  private readonly lagArchive: LagArchive | undefined
  private readonly mirrors = new Map<string, MirrorRuntime>()
  private readonly operations: OperationTracker
  private readonly listeners = new Set<(event: EngineEvent) => void>()
  private readonly runner: PartitionRunner
  private readonly fetchMaxWaitMs: number
  private timer: NodeJS.Timeout | null = null
  private ticking: Promise<void> | null = null
  private closed = false

  constructor(options: EngineOptions) {
    this.clusters = options.clusters
    this.now = options.now ?? Date.now
    this.random = options.random ?? Math.random
    this.log = options.log ?? (() => {})
    this.lagArchive = options.lagArchive
    this.fetchMaxWaitMs = options.fetchMaxWaitMs ?? 0
    const env: RunnerEnvironment = {
      now: () => this.now(),
      needsAttention: (runtime) => this.mirrors.get(runtime.mirror)?.attention.add(runtime),
      context: (mirror, runtime) => this.context(mirror, runtime.topic),
      source: (mirror) => this.cluster(mirror.sourceCluster).source,
      host: (mirror) => this.cluster(mirror.destinationCluster).host,
      store: (mirror) => this.stateStore(mirror.destinationCluster),
      topicPartitions: (mirror, topic) => this.requireMirror(mirror.name).partitions.ofTopic(topic),
      lookUpLastMirrorPosition: (mirror, runtime) => withTimeout(this.lookUpLastMirrorPosition(mirror, runtime), SOURCE_CALL_TIMEOUT_MS),
      emit: (event) => this.emit(event),
      onStoppingAction: options.onStoppingAction,
      log: (message, fields) => this.log(message, fields),
      // A waiting fetch round would hold a partition that stops (or starts) fetching for up to the wait.
      fetcherChanged: (mirror) => interruptFetch(this.mirrors.get(mirror.name)?.fetchInterrupt),
    }
    this.runner = new PartitionRunner(env)
    this.operations = new OperationTracker(options.operationStore ?? OperationStore.inMemory(), {
      now: () => this.now(),
      log: (message, fields) => this.log(message, fields),
      emit: (operation, change) => this.emit({ type: 'operation', operation, change }),
      partition: (mirror, topic, partition) => this.mirrors.get(mirror)?.partitions.get({ topic, partition }),
      stop: (mirror, runtimes, onEach) => this.stopPartitions(mirror, runtimes, onEach),
    })
  }

  // LIFECYCLE

  /** Replays every cluster's `__mirror_state` and resumes each partition where it was. */
  async start(): Promise<void> {
    for (const clusterName of this.clusters.names()) {
      const cluster = this.clusters.get(clusterName)
      if (!cluster) continue
      const records = await new MirrorStateStore(cluster.host).replay()
      const definitions = [...records.values()].filter((record) => record.key.kind === 'mirror')
      for (const { value } of definitions) {
        const definition = value as MirrorDefinition
        if (definition.destinationCluster !== clusterName) continue
        this.mirrors.set(definition.name, this.newMirrorRuntime(definition))
      }
      for (const { key, value } of records.values()) {
        if (key.kind === 'mirror') continue
        const mirror = this.mirrors.get(key.mirror)
        if (!mirror) continue
        if (key.kind === 'partition') {
          const stored = restoredPartition(value)
          if (!stored) continue
          const runtime = newPartitionRuntime(mirror.definition.name, stored.topic, key.topicId, stored.partition, stored.value)
          // The epoch this engine last wrote under: its first write after a restart is not fenced by its own.
          runtime.destinationLeaderEpoch = Math.max(0, stored.writerLeaderEpoch)
          mirror.partitions.set(runtime, runtime)
        }
      }
    }
    // Unfinished operations resume first: the partitions they still have to stop get the stop instead of
    // their restore, so none of them fetches again after the failover the operator was told was accepted.
    const stopping = this.operations.recover()
    for (const mirror of this.mirrors.values()) {
      await this.loadLagArchive(mirror).catch((error: unknown) => this.log('lag archive load failed', { mirror: mirror.definition.name, error: errorMessage(error) }))
      for (const runtime of mirror.partitions.values()) {
        if (stopping.has(runtime)) continue
        // Not awaited: a partition whose source is down must not hold up the server's start; the
        // per-partition lock still orders everything that follows.
        void this.runner.withLock(runtime, () => this.runner.restore(mirror.definition, runtime)).catch((error: unknown) =>
          this.log('resume failed', { mirror: mirror.definition.name, topic: runtime.topic, partition: runtime.partition, error: errorMessage(error) }),
        )
      }
      // A crash between adding a topic to the mirror and writing its partitions' first state leaves
      // partitions without a record; they start now (KIP-1279.md §2.3 row 1).
      void this.startMissingPartitions(mirror).catch((error: unknown) => this.log('start of missing partitions failed', { mirror: mirror.definition.name, error: errorMessage(error) }))
    }
  }

  private async startMissingPartitions(mirror: MirrorRuntime): Promise<void> {
    const { definition } = mirror
    const host = this.cluster(definition.destinationCluster).host
    const missing: PartitionRuntime[] = []
    for (const topic of await host.describeTopics(definition.topics)) {
      for (const { partition } of topic.partitions) {
        if (mirror.partitions.has({ topic: topic.name, partition })) continue
        const runtime = newPartitionRuntime(definition.name, topic.name, topic.topicId, partition, createMirrorPartition(this.now()))
        mirror.partitions.set(runtime, runtime)
        missing.push(runtime)
      }
    }
    await this.dispatchAll(mirror, missing, { type: 'startRequested' })
  }

  /** Resolves once no partition has work queued (restores, failovers, API requests): for tests and scripts. */
  async settle(): Promise<void> {
    for (;;) {
      const locks = [...this.mirrors.values()].flatMap((mirror) => [...mirror.partitions.values()].map((runtime) => runtime.lock))
      await Promise.all(locks)
      const after = [...this.mirrors.values()].flatMap((mirror) => [...mirror.partitions.values()].map((runtime) => runtime.lock))
      if (after.length === locks.length && after.every((lock, i) => lock === locks[i])) return
    }
  }

  startBackground(intervalMs = 100): void {
    if (this.timer || this.closed) return
    const loop = () => {
      if (this.closed) return
      this.tick()
        .catch((error: unknown) => this.log('tick failed', { error: String(error) }))
        .finally(() => {
          if (!this.closed) this.timer = setTimeout(loop, intervalMs)
        })
    }
    this.timer = setTimeout(loop, 0)
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const mirror of this.mirrors.values()) interruptFetch(mirror.fetchInterrupt)
    await this.ticking
    await this.operations.close()
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  // ONE ITERATION

  /** One deterministic iteration: due retries, replica waits, syncs, then one fetch round per mirror. */
  tick(): Promise<void> {
    if (this.ticking) return this.ticking
    this.ticking = this.runTick().finally(() => {
      this.ticking = null
    })
    return this.ticking
  }

  private async runTick(): Promise<void> {
    const mirrors = [...this.mirrors.values()]
    for (const mirror of mirrors) {
      // One mirror's trouble (or one step's) never stops the others: each step is isolated.
      await this.isolated(mirror, 'restore', () => this.runPendingRestores(mirror))
      await this.isolated(mirror, 'retries', () => this.runDueRetries(mirror))
      await this.isolated(mirror, 'convergence', () => this.runConvergenceChecks(mirror))
      await this.isolated(mirror, 'leadership', () => this.leadershipWatch.check(mirror.definition))
      if (this.now() >= mirror.nextSyncAt) await this.isolated(mirror, 'sync', () => this.sync(mirror))
    }
    // Side by side: a round may wait at its source, and one mirror's wait must not hold another's data.
    await Promise.all(mirrors.map((mirror) => this.isolated(mirror, 'fetch', () => this.fetchRound(mirror))))
    for (const mirror of mirrors) this.sampleLag(mirror)
    this.operations.checkUnsettled()
  }

  private async isolated(mirror: MirrorRuntime, step: string, work: () => Promise<void>): Promise<void> {
    try {
      await work()
    } catch (error) {
      this.log('tick step failed', { mirror: mirror.definition.name, step, error: errorMessage(error) })
    }
  }

  /**
   * The partitions that asked for a later tick (retries, restores, convergence checks), not a sweep over
   * every partition: a mirror of 100,000 partitions with 50,000 retrying visits those 50,000, yielding to
   * the event loop as it goes. Each keeps its place until none of the three is pending for it.
   */
  private async attentionSweep(mirror: MirrorRuntime, work: (runtime: PartitionRuntime) => Promise<void>): Promise<void> {
    const slice = new TimeSlice()
    for (const runtime of [...mirror.attention]) {
      await work(runtime)
      if (runtime.retryAt === null && !runtime.needsRestore && !(runtime.awaitingConvergence && runtime.value.state === 'ULE_LOG_TRUNCATION')) mirror.attention.delete(runtime)
      const turn = slice.maybeYield()
      if (turn) await turn
    }
  }

  /** Partitions whose state write failed: their effects are re-run from the last durable state. */
  private async runPendingRestores(mirror: MirrorRuntime): Promise<void> {
    await this.attentionSweep(mirror, async (runtime) => {
      if (!runtime.needsRestore) return
      runtime.needsRestore = false
      await this.runner.withLock(runtime, () => this.runner.restore(mirror.definition, runtime))
    })
  }

  private async runDueRetries(mirror: MirrorRuntime): Promise<void> {
    const now = this.now()
    await this.attentionSweep(mirror, async (runtime) => {
      if (runtime.retryAt === null || runtime.retryAt > now) return
      const expectedStateEpoch = runtime.retryStateEpoch ?? undefined
      runtime.retryAt = null
      await this.runner.withLock(runtime, () =>
        this.runner.dispatch(mirror.definition, runtime, { type: 'retryDue', expectedStateEpoch }, `retry attempt ${runtime.value.retryAttempt}`),
      )
    })
  }

  private async runConvergenceChecks(mirror: MirrorRuntime): Promise<void> {
    await this.attentionSweep(mirror, async (runtime) => {
      if (!runtime.awaitingConvergence || runtime.value.state !== 'ULE_LOG_TRUNCATION') return
      await this.runner.withLock(runtime, () =>
        this.runner.resume(mirror.definition, runtime, [{ kind: 'awaitReplicaConvergence', then: 'replicasConverged' }]),
      )
    })
  }

  // FETCHING

  /**
   * One fetch round: the MIRRORING partitions are grouped by their source leader and each group is one
   * fetch (many partitions, bounded bytes), all groups at once, as a fetcher per source broker would.
   */
  private async fetchRound(mirror: MirrorRuntime): Promise<void> {
    const runnable = [...mirror.partitions.values()].filter((runtime) => runtime.fetching && runtime.value.state === 'MIRRORING')
    if (runnable.length === 0) return
    const { definition } = mirror
    const { host, source } = this.cluster(definition.sourceCluster, definition.destinationCluster)
    // #35: another cluster behind the source's address fails the mirror before anything of it is fetched.
    const changedClusterId = await changedSourceClusterId(definition, source)
    if (changedClusterId) return this.dispatchAll(mirror, [...mirror.partitions.values()], { type: 'sourceClusterIdChanged', ...changedClusterId })
    const topics = [...new Set(runnable.map((runtime) => runtime.topic))]
    // A topic at a time, with turns of the event loop between: describing 10,000 partitions in one call
    // holds the loop for tens of milliseconds. Kept by topic, then by partition number: a round looks up
    // every mirrored partition, and a string key per lookup costs more than the rest of a quiet partition.
    const descriptions = new Map<string, Array<TopicDescription['partitions'][number] | undefined>>()
    for (const topic of topics) {
      const destination = await host.describeTopics([topic])
      this.rememberDestinationTopics(definition.destinationCluster, destination)
      for (const described of destination) {
        const byPartition: Array<TopicDescription['partitions'][number] | undefined> = []
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
      runtime.destinationHighWatermark = description.highWatermark
      runtime.destinationLogEndOffset = description.logEndOffset
      runtime.destinationLeaderEpoch = description.leaderEpoch
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
      await Promise.all([...byLeader.values()].map((entries) => this.fetchFromLeader(mirror, entries, interrupt.signal).finally(() => interruptFetch(interrupt))))
    } finally {
      if (mirror.fetchInterrupt === interrupt) mirror.fetchInterrupt = null
    }
  }

  private async fetchFromLeader(mirror: MirrorRuntime, leaderEntries: FetchEntry[], signal: AbortSignal): Promise<void> {
    const { definition } = mirror
    const source = this.cluster(definition.sourceCluster).source
    // Replication throttle (server/engine/fetcher/replication-throttle.ts): throttled partitions sit out or get a smaller budget.
    const entries = this.throttles.admit(definition, leaderEntries, this.now())
    if (entries.length === 0) return
    let results: FetchPartitionResult[]
    try {
      results = await source.fetch(
        entries.map(({ request }) => request),
        { maxBytes: definition.config['fetch.response.max.bytes'], maxWaitMs: this.fetchMaxWaitMs, signal },
      )
      this.throttles.record(definition, entries, results, this.now())
    } catch (error) {
      for (const { runtime } of entries) {
        await this.runner.withLock(runtime, () =>
          this.runner.dispatch(definition, runtime, { type: 'failed', error: `source unreachable: ${errorMessage(error)}`, retryable: true }, 'source unreachable'),
        )
      }
      return
    }
    if (results.length !== entries.length) throw new Error(`the source answered ${results.length} partitions of a fetch for ${entries.length}`)
    const slice = new TimeSlice()
    const busy: Array<{ entry: FetchEntry; result: FetchPartitionResult }> = []
    // Read once per answer: the quiet partitions of one answer were all fetched at the same moment.
    const now = this.now()
    for (const [index, result] of results.entries()) {
      const turn = slice.maybeYield()
      if (turn) await turn
      // Results come in the order of the requests (SourceCluster.fetch); a mismatch would be a port bug.
      const entry = entries[index]!
      if (entry.request.topic !== result.topic || entry.request.partition !== result.partition) {
        throw new Error(`the source answered ${result.topic}-${result.partition} for ${entry.request.topic}-${entry.request.partition}`)
      }
      if (!result.ok && result.error.code === 'NOT_LEADER_OR_FOLLOWER') mirror.nextSyncAt = now
      if (this.isQuietFetch(entry, result)) {
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
      for (const other of this.mirrors.values()) if (other !== mirror) interruptFetch(other.fetchInterrupt)
    }
    // Partitions are independent: their appends run side by side and share the destination's fsyncs,
    // a bounded number at once (each holds its log's descriptor until its fsync is done).
    await forEachConcurrently(busy, PARTITION_CONCURRENCY, ({ entry, result }) => {
        return this.runner.withLock(entry.runtime, async () => {
          try {
            await this.applyFetchResult(mirror, entry.runtime, entry.request, entry.stateEpoch, result)
          } catch (error) {
            const failure = classifyAppendError(error)
            await this.runner.dispatch(definition, entry.runtime, { type: 'failed', error: `append: ${failure.error}`, retryable: failure.retryable }, 'applying a fetch failed')
          }
        })
      })
  }

  /** An answer with no records, no divergence and nothing for the partition to act on. */
  private isQuietFetch(entry: FetchEntry, result: FetchPartitionResult): result is Extract<FetchPartitionResult, { ok: true }> {
    const { runtime } = entry
    return (
      result.ok &&
      result.records.byteLength === 0 &&
      result.divergingEpoch === null &&
      result.logStartOffset <= entry.destinationLogStartOffset &&
      runtime.value.state === 'MIRRORING' &&
      runtime.fetching &&
      runtime.value.stateEpoch === entry.stateEpoch &&
      runtime.value.error === null &&
      runtime.value.retryAttempt === 0 &&
      entry.request.fetchOffset === runtime.destinationLogEndOffset
    )
  }

  private async applyFetchResult(mirror: MirrorRuntime, runtime: PartitionRuntime, request: FetchPartitionRequest, stateEpoch: number, result: FetchPartitionResult): Promise<void> {
    const { definition } = mirror
    // A response for a partition that moved on (stopped, paused, truncated, failed and retried) is
    // dropped: appending it now could land data after the STOPPING markers.
    if (runtime.value.state !== 'MIRRORING' || !runtime.fetching || runtime.value.stateEpoch !== stateEpoch) return
    const host = this.cluster(definition.destinationCluster).host
    const tp = { topic: runtime.topic, partition: runtime.partition }
    const now = this.now()
    if (!result.ok) {
      if (result.error.code === 'OFFSET_OUT_OF_RANGE' && result.logStartOffset !== undefined && request.fetchOffset < result.logStartOffset) {
        // The source deleted what we had not fetched yet: restart at its log start (KIP-1279.md §11 #12).
        await host.truncateFullyAndStartAt(tp, result.logStartOffset)
        this.log('fetch offset below source log start; restarted', { mirror: definition.name, ...tp, logStartOffset: result.logStartOffset })
        return
      }
      await this.runner.dispatch(definition, runtime, { type: 'failed', error: `${result.error.code}: ${result.error.message}`, retryable: true }, 'fetch failed')
      return
    }
    if (request.fetchOffset !== runtime.destinationLogEndOffset) return
    if (result.divergingEpoch) {
      const local = await host.endOffsetForEpoch(tp, result.divergingEpoch.leaderEpoch)
      const [description] = await host.describeTopics([runtime.topic])
      if (description) this.rememberDestinationTopics(definition.destinationCluster, [description])
      const partition = await host.describePartition(tp)
      await this.runner.dispatch(
        definition,
        runtime,
        {
          type: 'divergenceDetected',
          divergingEpoch: { epoch: result.divergingEpoch.leaderEpoch, offset: result.divergingEpoch.endOffset },
          localEndOffsetForEpoch: { epoch: local.leaderEpoch, offset: local.endOffset },
          logStartOffset: partition.logStartOffset,
          logEndOffset: partition.logEndOffset,
        },
        `source history diverges at epoch ${result.divergingEpoch.leaderEpoch} offset ${result.divergingEpoch.endOffset}`,
      )
      return
    }
    if (result.records.byteLength > 0) {
      const batches = splitBatches(result.records)
      const highestBatchEpoch = batches.reduce((max, { header }) => Math.max(max, header.partitionLeaderEpoch), -1)
      const leaderEpoch = runtime.destinationLeaderEpoch
      if (highestBatchEpoch > leaderEpoch) {
        // Never append a batch above the destination epoch (DLE ≥ SLE); fence, bump, refetch.
        await this.runner.dispatch(
          definition,
          runtime,
          { type: 'batchEpochExceeded', batchEpoch: highestBatchEpoch, leaderEpoch, sourceLeaderEpoch: result.leaderEpoch },
          `batch epoch ${highestBatchEpoch} above destination leader epoch ${leaderEpoch}`,
        )
        return
      }
      const observedEpoch = Math.max(highestBatchEpoch, result.leaderEpoch)
      if (needsProactiveEpochBump(observedEpoch, leaderEpoch)) {
        await this.runner.dispatch(definition, runtime, { type: 'epochBumpThresholdReached', observedEpoch, leaderEpoch }, `epoch ${observedEpoch} near destination epoch ${leaderEpoch}`)
        if (runtime.value.state !== 'MIRRORING' || !runtime.fetching) return
      }
      const firstBaseOffset = batches[0]!.header.baseOffset
      if (firstBaseOffset < request.fetchOffset) {
        // The source's log start is inside this batch, and so is our (empty) log's end. Like Kafka's
        // follower on UnexpectedAppendOffsetException, restart the empty log at the batch's base offset;
        // the log-start sync below moves our log start back up to the source's.
        const current = await host.describePartition(tp)
        if (current.logStartOffset !== current.logEndOffset) return
        await host.truncateFullyAndStartAt(tp, firstBaseOffset)
      }
      const appended = await host.appendMirroredBatches(tp, result.records)
      runtime.destinationLogEndOffset = appended.logEndOffset
      runtime.destinationHighWatermark = appended.highWatermark
      mirror.mirroredBytes += result.records.byteLength
      mirror.mirroredRecords += batches.reduce((sum, { header }) => sum + header.lastOffset - header.baseOffset + 1, 0)
    }
    const destinationPartition = await host.describePartition(tp)
    if (result.logStartOffset > destinationPartition.logStartOffset) {
      await host.deleteRecordsBefore(tp, Math.min(result.logStartOffset, destinationPartition.logEndOffset), { bypassReadOnly: true })
    }
    recordSourcePosition(runtime, result, now)
    if (runtime.value.error !== null || runtime.value.retryAttempt !== 0) {
      await this.runner.dispatch(definition, runtime, { type: 'fetchSucceeded' }, 'fetch succeeded')
    }
  }

  // PREPARING

  private async lookUpLastMirrorPosition(definition: MirrorDefinition, runtime: PartitionRuntime): Promise<MirrorEvent> {
    const { source, host } = this.cluster(definition.sourceCluster, definition.destinationCluster)
    const tp = { topic: runtime.topic, partition: runtime.partition }
    const destinationClusterId = await host.clusterId()
    const sourceClusterId = await source.clusterId()
    if (sourceClusterId !== definition.sourceClusterId) {
      return { type: 'sourceClusterIdChanged', expectedClusterId: definition.sourceClusterId, actualClusterId: sourceClusterId }
    }
    const verdict = reverseMirrorVerdict(await source.listHostedMirrors({ topics: [runtime.topic] }), destinationClusterId, tp)
    if (verdict.kind === 'loop') {
      return { type: 'mirrorLoopDetected', detail: `mirror ${verdict.mirror} on ${definition.sourceCluster} mirrors ${runtime.topic} from this cluster (${verdict.state})` }
    }
    if (verdict.kind === 'notStopped') {
      return { type: 'failed', error: `mirror ${verdict.mirror} on ${definition.sourceCluster} has not stopped for partition ${runtime.topic}-${runtime.partition} (${verdict.state})`, retryable: true }
    }
    const sourcePartition = await source.describePartition(tp).catch((error: unknown) => {
      if (isClusterError(error, 'NOT_FOUND')) return null
      throw error
    })
    if (!sourcePartition) {
      // Unknown is not empty: without the source partition's log start a full truncation could erase data.
      return { type: 'failed', error: `source partition ${runtime.topic}-${runtime.partition} is not known to ${definition.sourceCluster} yet`, retryable: true }
    }
    const input = await this.alignmentInput(definition, tp, destinationClusterId)
    return { type: 'lastMirrorPositionFound', ...input }
  }

  private async alignmentInput(definition: MirrorDefinition, tp: TopicPartition, destinationClusterId: string): Promise<Omit<TruncationPlanInput, 'topic' | 'partition'>> {
    const { source, host } = this.cluster(definition.sourceCluster, definition.destinationCluster)
    const positions = await source.lastMirrorPositions(destinationClusterId, [tp])
    const absent = (error: unknown) => {
      if (isClusterError(error, 'NOT_FOUND')) return undefined
      throw error
    }
    // One partition each, not its whole topic: PREPARING runs per partition, and a 1,000-partition topic
    // described 1,000 times made starting a large mirror quadratic.
    const sourcePartition = await source.describePartition(tp).catch(absent)
    const destinationPartition = await host.describePartition(tp).catch(absent)
    return this.alignmentFrom(host, tp, positions.get(topicPartitionName(tp)) ?? null, sourcePartition, destinationPartition)
  }

  /** What decideTruncation needs, from the last mirror position and both sides' descriptions. */
  private async alignmentFrom(
    host: MirrorHost,
    tp: TopicPartition,
    lastMirrorPosition: LastMirrorPosition | null,
    sourcePartition: { logStartOffset: number } | undefined,
    destinationPartition: { logStartOffset: number; logEndOffset: number } | undefined,
  ): Promise<Omit<TruncationPlanInput, 'topic' | 'partition'>> {
    let local = lastMirrorPosition && destinationPartition ? await host.endOffsetForEpoch(tp, lastMirrorPosition.epoch) : null
    if (lastMirrorPosition && destinationPartition && local && local.leaderEpoch < 0) {
      // Kafka answers "undefined" for an epoch above every local one; our whole log then precedes the
      // recorded position, so the local history ends at the latest epoch's end, not nowhere.
      const latestEpoch = await host.latestEpoch(tp)
      if (latestEpoch >= 0 && latestEpoch < lastMirrorPosition.epoch) local = { leaderEpoch: latestEpoch, endOffset: destinationPartition.logEndOffset }
    }
    return {
      lastMirrorPosition: lastMirrorPosition ? { epoch: lastMirrorPosition.epoch, offset: lastMirrorPosition.offset } : null,
      localEndOffsetForEpoch: local ? { epoch: local.leaderEpoch, offset: local.endOffset } : null,
      logStartOffset: destinationPartition?.logStartOffset ?? 0,
      logEndOffset: destinationPartition?.logEndOffset ?? 0,
      sourceLogStartOffset: sourcePartition?.logStartOffset ?? 0,
    }
  }

  // SYNCS

  private async sync(mirror: MirrorRuntime): Promise<void> {
    const { definition } = mirror
    mirror.nextSyncAt = this.now() + definition.config['mirror.metadata.refresh.interval.ms']
    let source: SourceCluster, host: MirrorHost
    try {
      ;({ source, host } = this.cluster(definition.sourceCluster, definition.destinationCluster))
    } catch {
      return
    }
    let sourceTopics: TopicDescription[]
    try {
      const clusterId = await source.clusterId()
      if (clusterId !== definition.sourceClusterId) {
        await this.dispatchAll(mirror, [...mirror.partitions.values()], { type: 'sourceClusterIdChanged', expectedClusterId: definition.sourceClusterId, actualClusterId: clusterId })
        return
      }
      sourceTopics = await source.describeTopics()
    } catch (error) {
      this.log('sync: source unreachable', { mirror: definition.name, error: String(error) })
      return
    }
    const byName = new Map(sourceTopics.map((topic) => [topic.name, topic]))
    for (const topic of sourceTopics) for (const partition of topic.partitions) mirror.sourceLeaders.set({ topic: topic.name, partition: partition.partition }, partition.leader)

    // New topics matching the include patterns start mirroring by themselves.
    const discovered = sourceTopics
      .map((topic) => topic.name)
      .filter((name) => !definition.topics.includes(name) && matchesFilters(name, definition.config['topics.include'], definition.config['topics.exclude']))
    if (discovered.length > 0) {
      await this.startTopics(definition.name, { topics: discovered }).catch((error: unknown) => this.log('sync: start of discovered topics failed', { error: String(error) }))
    }

    for (const topic of definition.topics) {
      const active = mirror.partitions.ofTopic(topic).filter((runtime) => runtime.value.state !== 'STOPPED' && runtime.value.state !== 'STOPPING')
      const sourceTopic = byName.get(topic)
      if (!sourceTopic) {
        const misses = (mirror.missingTopicSyncs.get(topic) ?? 0) + 1
        mirror.missingTopicSyncs.set(topic, misses)
        if (misses >= 2) await this.dispatchAll(mirror, active, { type: 'sourceTopicDeleted' })
        continue
      }
      mirror.missingTopicSyncs.delete(topic)
      if (active.length === 0) continue
      // A mirrored topic that starts matching topics.exclude is stopped.
      if (matchesAny(topic, definition.config['topics.exclude'])) {
        await this.dispatchAll(mirror, active, { type: 'stopRequested' })
        continue
      }
      const syncable = active.some((runtime) => runtime.value.state !== 'PAUSED' && runtime.value.state !== 'PAUSING')
      if (!syncable) continue
      await this.syncPartitionCount(mirror, sourceTopic)
      await this.syncConfigs(mirror, host, sourceTopic)
      const [destinationTopic] = await host.describeTopics([topic])
      if (destinationTopic?.configs['remote.storage.enable'] === 'true') {
        await this.dispatchAll(mirror, active, { type: 'tieredStorageDetected' })
        continue
      }
      const destinationEpochs = new Map(destinationTopic?.partitions.map((p) => [p.partition, p.leaderEpoch]))
      const bumps: Array<{ runtime: PartitionRuntime; observedEpoch: number; leaderEpoch: number }> = []
      for (const sourcePartition of sourceTopic.partitions) {
        const runtime = mirror.partitions.get({ topic, partition: sourcePartition.partition })
        const destinationEpoch = destinationEpochs.get(sourcePartition.partition)
        if (!runtime || runtime.value.state !== 'MIRRORING' || destinationEpoch === undefined) continue
        if (needsProactiveEpochBump(sourcePartition.leaderEpoch, destinationEpoch)) bumps.push({ runtime, observedEpoch: sourcePartition.leaderEpoch, leaderEpoch: destinationEpoch })
      }
      await forEachConcurrently(bumps, PARTITION_CONCURRENCY, ({ runtime, observedEpoch, leaderEpoch }) =>
        this.runner.withLock(runtime, () => this.runner.dispatch(definition, runtime, { type: 'epochBumpThresholdReached', observedEpoch, leaderEpoch }, 'periodic epoch check')),
      )
    }
    await this.syncGroupOffsets(mirror, source, host)
  }

  private async syncPartitionCount(mirror: MirrorRuntime, sourceTopic: TopicDescription): Promise<void> {
    const { definition } = mirror
    const host = this.cluster(definition.destinationCluster).host
    const [destination] = await host.describeTopics([sourceTopic.name])
    if (!destination) return
    const known = mirror.partitions.ofTopic(sourceTopic.name).length
    if (sourceTopic.partitions.length <= known) return
    if (destination.partitions.length < sourceTopic.partitions.length) await host.createMirrorPartitions(sourceTopic.name, sourceTopic.partitions.length)
    const added: PartitionRuntime[] = []
    for (let partition = 0; partition < sourceTopic.partitions.length; partition++) {
      if (mirror.partitions.has({ topic: sourceTopic.name, partition })) continue
      const runtime = newPartitionRuntime(definition.name, sourceTopic.name, destination.topicId, partition, createMirrorPartition(this.now()))
      mirror.partitions.set(runtime, runtime)
      added.push(runtime)
    }
    await this.dispatchAll(mirror, added, { type: 'startRequested' })
  }

  private async syncConfigs(mirror: MirrorRuntime, host: MirrorHost, sourceTopic: TopicDescription): Promise<void> {
    const wanted = syncedTopicConfigs(sourceTopic.configs, mirror.definition.config)
    const [destination] = await host.describeTopics([sourceTopic.name])
    if (!destination) return
    const changed = Object.entries(wanted).some(([key, value]) => destination.configs[key] !== value)
    if (changed) await host.alterTopicConfigs(sourceTopic.name, wanted)
  }

  private async syncGroupOffsets(mirror: MirrorRuntime, source: SourceCluster, host: MirrorHost): Promise<void> {
    const { definition } = mirror
    const [sourceGroups, destinationGroups] = await Promise.all([source.listGroupOffsets(), host.listGroupOffsets()])
    const activeOnDestination = new Set(destinationGroups.filter((group) => group.hasActiveMembers).map((group) => group.groupId))
    const destinationTopics = await host.describeTopics(definition.topics)
    for (const group of sourceGroups) {
      if (activeOnDestination.has(group.groupId)) continue
      if (!matchesFilters(group.groupId, definition.config['groups.include'], definition.config['groups.exclude'])) continue
      for (const committed of group.offsets) {
        const runtime = mirror.partitions.get(committed)
        // Offsets follow only partitions that are mirroring: a stopped topic belongs to its new writers.
        if (!runtime || runtime.value.state !== 'MIRRORING') continue
        const destination = destinationTopics.find((topic) => topic.name === committed.topic)?.partitions.find((p) => p.partition === committed.partition)
        if (!destination) continue
        const clamped = Math.max(destination.logStartOffset, Math.min(committed.offset, destination.logEndOffset))
        const current = destinationGroups.find((candidate) => candidate.groupId === group.groupId)?.offsets.find((o) => o.topic === committed.topic && o.partition === committed.partition)
        if (current?.offset === clamped) continue
        // Unclamped, the offset keeps the source's leader epoch (DLE ≥ SLE makes it valid here); a
        // clamped one points at a different record: it takes the destination's epoch there, and is
        // skipped while that is unknown (KIP-1279.md §3.6).
        const leaderEpoch = clamped === committed.offset ? committed.leaderEpoch : await host.epochForOffset({ topic: committed.topic, partition: committed.partition }, clamped)
        if (leaderEpoch !== null && leaderEpoch < 0) continue
        await host.commitSyncedGroupOffset(group.groupId, { topic: committed.topic, partition: committed.partition }, clamped, leaderEpoch)
      }
    }
  }

  private async dispatchAll(mirror: MirrorRuntime, runtimes: PartitionRuntime[], event: MirrorEvent): Promise<void> {
    await forEachConcurrently(runtimes, PARTITION_CONCURRENCY, (runtime) => this.runner.withLock(runtime, () => this.runner.dispatch(mirror.definition, runtime, event)))
  }

  // LAG

  private sampleLag(mirror: MirrorRuntime): void {
    const now = this.now()
    if (now - mirror.lastLagSampleAt < LAG_SAMPLE_INTERVAL_MS) return
    mirror.lastLagSampleAt = now
    const minuteStart = Math.floor(now / 60_000) * 60_000
    if (mirror.lagMinute.t !== minuteStart) {
      const finished = mirror.lagMinute
      mirror.lagMinute = { t: minuteStart, worst: new TopicPartitionMap() }
      if (finished.t > 0) this.archiveLagMinute(mirror.definition.name, finished)
    }
    const partitions: Array<{ topic: string; partition: number; offsetLag: number | null; timeLagMs: number | null }> = []
    let sampled = 0
    let maxOffsetLag = 0
    let totalOffsetLag = 0
    let maxTimeLagMs = 0
    for (const runtime of mirror.partitions.values()) {
      if (runtime.value.state !== 'MIRRORING' || runtime.sourceHighWatermark === null) {
        runtime.lastLagEvent = null
        continue
      }
      const { offsetLag, timeLagMs } = this.lagOf(runtime)
      if (offsetLag === null) continue
      let history = mirror.lagHistory.get(runtime)
      if (!history) mirror.lagHistory.set(runtime, (history = new LagHistory()))
      history.record(now, offsetLag, timeLagMs)
      if (offsetLag > 0 || (timeLagMs ?? 0) > 0) {
        const worst = mirror.lagMinute.worst.get(runtime)
        mirror.lagMinute.worst.set(runtime, [
          runtime.topic,
          runtime.partition,
          Math.max(worst?.[2] ?? 0, offsetLag),
          timeLagMs === null ? (worst?.[3] ?? null) : Math.max(worst?.[3] ?? 0, timeLagMs),
        ])
      }
      maxOffsetLag = Math.max(maxOffsetLag, offsetLag)
      totalOffsetLag += offsetLag
      maxTimeLagMs = Math.max(maxTimeLagMs, timeLagMs ?? 0)
      sampled += 1
      // Only what changed since the last event: a 10,000-partition mirror that is caught up would
      // otherwise send every viewer a megabyte of zeros each second. Pages seed from GET .../partitions.
      const previous = runtime.lastLagEvent
      if (previous && previous[0] === offsetLag && previous[1] === timeLagMs) continue
      runtime.lastLagEvent = [offsetLag, timeLagMs]
      partitions.push({ topic: runtime.topic, partition: runtime.partition, offsetLag, timeLagMs })
    }
    if (sampled > 0) this.emit({ type: 'lag', mirror: mirror.definition.name, at: now, sampledPartitions: sampled, maxOffsetLag, totalOffsetLag, maxTimeLagMs, partitions })
  }

  private archiveLagMinute(mirror: string, minute: MirrorRuntime['lagMinute']): void {
    if (!this.lagArchive) return
    this.lagArchive
      .append(mirror, { t: minute.t, p: [...minute.worst.values()] })
      .catch((error: unknown) => this.log('lag archive append failed', { mirror, error: errorMessage(error) }))
  }

  /** Puts the archived minutes of the last day back into each partition's history after a restart. */
  private async loadLagArchive(mirror: MirrorRuntime): Promise<void> {
    if (!this.lagArchive) return
    const now = this.now()
    for (const minute of await this.lagArchive.load(mirror.definition.name, now, now - 24 * 60 * 60 * 1000)) {
      for (const [topic, partition, offsetLag, timeLagMs] of minute.p) {
        let history = mirror.lagHistory.get({ topic, partition })
        if (!history) mirror.lagHistory.set({ topic, partition }, (history = new LagHistory()))
        history.record(minute.t, offsetLag, timeLagMs)
      }
    }
  }

  private lagOf(runtime: PartitionRuntime): { offsetLag: number | null; timeLagMs: number | null } {
    if (runtime.sourceHighWatermark === null) return { offsetLag: null, timeLagMs: null }
    return {
      offsetLag: computeOffsetLag(runtime.sourceHighWatermark, runtime.destinationHighWatermark),
      timeLagMs: computeTimeLag({
        now: this.now(),
        sourceHighWatermark: runtime.sourceHighWatermark,
        destinationHighWatermark: runtime.destinationHighWatermark,
        oldestUnmirroredTimestamp: runtime.oldestUnmirroredTimestamp,
      }),
    }
  }

  // MIRRORS

  async createMirror(input: CreateMirrorInput): Promise<MirrorDefinition> {
    assertName(input.name, 'mirror')
    if (this.mirrors.has(input.name)) throw new EngineError('CONFLICT', `mirror ${input.name} already exists`)
    if (input.sourceCluster === input.destinationCluster) throw new EngineError('VALIDATION_FAILED', 'a mirror needs two different clusters')
    const { source } = this.cluster(input.sourceCluster, input.destinationCluster)
    const config = resolveConfig(input)
    const topics = input.topics ?? []
    for (const topic of topics) assertName(topic, 'topic')
    const sourceClusterId = await this.reachSource(source, () => source.clusterId())
    const sourceTopics = await this.reachSource(source, () => source.describeTopics(topics))
    const missing = topics.filter((topic) => !sourceTopics.some((described) => described.name === topic))
    if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${input.sourceCluster}: ${missing.join(', ')}`)
    await this.assertTopicsStartable(input.name, input.destinationCluster, sourceTopics, source)
    const definition: MirrorDefinition = {
      name: input.name,
      sourceCluster: input.sourceCluster,
      destinationCluster: input.destinationCluster,
      sourceClusterId,
      topics: [],
      config,
      createdAt: this.now(),
    }
    await this.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: definition.name }, value: definition }])
    const runtime = this.newMirrorRuntime(definition)
    this.mirrors.set(definition.name, runtime)
    this.emit({ type: 'mirror', mirror: definition.name, change: 'created' })
    if (topics.length > 0) await this.startTopics(definition.name, { topics })
    // The first sync discovers topics matching topics.include.
    runtime.nextSyncAt = this.now()
    return definition
  }

  /** The truncation plan a new mirror (or a start of topics) would apply; changes nothing. */
  async planStart(input: { sourceCluster: string; destinationCluster: string; topics: string[]; mirror?: string }): Promise<TruncationPlanResult> {
    const { source, host } = this.cluster(input.sourceCluster, input.destinationCluster)
    const destinationClusterId = await host.clusterId()
    const sourceTopics = await this.reachSource(source, () => source.describeTopics(input.topics))
    const missing = input.topics.filter((topic) => !sourceTopics.some((described) => described.name === topic))
    if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${input.sourceCluster}: ${missing.join(', ')}`)
    const pseudo = { name: input.mirror ?? 'plan' }
    const inputs: TruncationPlanInput[] = []
    const [destinationTopics, positions] = await Promise.all([
      host.describeTopics(sourceTopics.map((topic) => topic.name)),
      this.reachSource(source, () =>
        source.lastMirrorPositions(
          destinationClusterId,
          sourceTopics.flatMap((topic) => topic.partitions.map(({ partition }) => ({ topic: topic.name, partition }))),
        ),
      ),
    ])
    for (const topic of sourceTopics) {
      const destination = destinationTopics.find((candidate) => candidate.name === topic.name)
      for (const sourcePartition of topic.partitions) {
        const tp = { topic: topic.name, partition: sourcePartition.partition }
        inputs.push({ ...tp, ...(await this.alignmentFrom(host, tp, positions.get(topicPartitionName(tp)) ?? null, sourcePartition, destination?.partitions.find((p) => p.partition === tp.partition))) })
      }
    }
    return { mirror: pseudo.name, partitions: truncationPlan(inputs) }
  }

  async deleteMirror(name: string): Promise<void> {
    const mirror = this.requireMirror(name)
    // A mirror without partitions has nothing to stop and may go.
    if (mirror.partitions.size > 0) planOrRefuse('delete', [...mirror.partitions.values()], { named: true, mirror: name })
    await this.stateStore(mirror.definition.destinationCluster).write([
      ...[...mirror.partitions.values()].flatMap((runtime) => [
        { key: { kind: 'partition' as const, mirror: name, topicId: runtime.topicId, partition: runtime.partition }, value: null },
        { key: { kind: 'position' as const, mirror: name, topicId: runtime.topicId, partition: runtime.partition }, value: null },
      ]),
      { key: { kind: 'mirror', mirror: name }, value: null },
    ])
    this.mirrors.delete(name)
    this.throttles.forget(name)
    this.leadershipWatch.forget(name)
    this.emit({ type: 'mirror', mirror: name, change: 'deleted' })
  }

  async updateMirrorConfig(name: string, patch: Partial<MirrorConfig>): Promise<MirrorDefinition> {
    const mirror = this.requireMirror(name)
    const config = resolveConfig({ config: { ...mirror.definition.config, ...patch } })
    const definition = { ...mirror.definition, config }
    await this.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: name }, value: definition }])
    mirror.definition = definition
    mirror.nextSyncAt = this.now()
    this.emit({ type: 'mirror', mirror: name, change: 'updated' })
    return definition
  }

  listMirrors(): MirrorDefinition[] {
    return [...this.mirrors.values()].map((mirror) => mirror.definition)
  }

  getMirror(name: string): MirrorDefinition {
    return this.requireMirror(name).definition
  }

  /**
   * A client changed a destination topic's configs: the ones the state machine watches apply now, not at
   * the next sync (KIP-1279.md §2.3): `remote.storage.enable` fails the topic's mirror partitions for good
   * (§11 #36), `mirror.support.unclean.leader.election` is what the next divergence is judged by.
   */
  async destinationTopicConfigsChanged(clusterName: string, topic: string): Promise<void> {
    for (const mirror of this.mirrors.values()) {
      if (mirror.definition.destinationCluster !== clusterName || !mirror.definition.topics.includes(topic)) continue
      const [description] = await this.cluster(clusterName).host.describeTopics([topic])
      if (!description) continue
      this.rememberDestinationTopics(clusterName, [description])
      if (description.configs['remote.storage.enable'] !== 'true') continue
      const active = mirror.partitions.ofTopic(topic).filter((runtime) => runtime.value.state !== 'STOPPED' && runtime.value.state !== 'STOPPING')
      await this.dispatchAll(mirror, active, { type: 'tieredStorageDetected' })
    }
  }

  // TOPIC OPERATIONS

  /**
   * Starts (or restarts after STOPPED) mirroring of topics: each partition goes to PREPARING. Patterns
   * are added to the mirror's topics.include, so topics created on the source later are discovered.
   */
  async startTopics(mirrorName: string, request: { topics?: string[]; patterns?: string[] }): Promise<CommandResult> {
    const mirror = this.requireMirror(mirrorName)
    const { definition } = mirror
    const { source, host } = this.cluster(definition.sourceCluster, definition.destinationCluster)
    const sourceTopics = await this.reachSource(source, () => source.describeTopics())
    const named = [...new Set(request.topics ?? [])]
    for (const topic of named) assertName(topic, 'topic')
    const patterns = (request.patterns ?? []).map((pattern) => compilePattern(pattern))
    const matched = sourceTopics.filter((topic) => patterns.some((pattern) => pattern.test(topic.name))).map((topic) => topic.name)
    const missing = named.filter((topic) => !sourceTopics.some((described) => described.name === topic))
    if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${definition.sourceCluster}: ${missing.join(', ')}`)
    // A running failover's stopped partitions stay stopped until it has finished: a restart resumes the
    // operation from the partitions' states and must not find one of them mirroring again. Checked before the
    // state preconditions, so the operator learns which operation is in the way, not just a state.
    for (const topic of named) {
      const [running] = this.operations.runningOn(mirrorName, topic)
      if (running) throw new EngineError('INVALID_MIRROR_STATE', `topic ${topic} is part of running operation ${running}; start it once that has finished`, { details: { operation: running } })
    }
    const matchedFree = matched.filter((topic) => this.operations.runningOn(mirrorName, topic).length === 0)
    const wanted = new Set([...named, ...matchedFree])
    const plan = planStartOrRefuse(mirrorName, named, matchedFree, runtimeStates([...mirror.partitions.values()].filter((runtime) => wanted.has(runtime.topic))))
    const starting = new Set(plan.topics)
    const selected = sourceTopics.filter((topic) => starting.has(topic.name))
    await this.assertTopicsStartable(mirrorName, definition.destinationCluster, selected, source)
    const skipped = TopicPartitionMap.of(plan.skipped.map((p) => [p, true] as const))

    const started: string[] = []
    for (const sourceTopic of selected) {
      const [existing] = await host.describeTopics([sourceTopic.name])
      const destination =
        existing ??
        (await host.createMirrorTopic({
          name: sourceTopic.name,
          topicId: sourceTopic.topicId,
          partitions: sourceTopic.partitions.length,
          replicationFactor: sourceTopic.replicationFactor,
          configs: syncedTopicConfigs(sourceTopic.configs, definition.config),
          mirror: mirrorName,
        }))
      if (existing && destination.partitions.length < sourceTopic.partitions.length) await host.createMirrorPartitions(sourceTopic.name, sourceTopic.partitions.length)
      if (!mirror.definition.topics.includes(sourceTopic.name)) {
        mirror.definition = { ...mirror.definition, topics: [...mirror.definition.topics, sourceTopic.name] }
        await this.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: mirrorName }, value: mirror.definition }])
      }
      const runtimes: PartitionRuntime[] = []
      for (const { partition } of sourceTopic.partitions) {
        const tp = { topic: sourceTopic.name, partition }
        if (skipped.has(tp)) continue
        let runtime = mirror.partitions.get(tp)
        if (!runtime) {
          runtime = newPartitionRuntime(mirrorName, sourceTopic.name, destination.topicId, partition, createMirrorPartition(this.now()))
          mirror.partitions.set(runtime, runtime)
        }
        runtimes.push(runtime)
      }
      await Promise.all(runtimes.map((runtime) => this.runner.withLock(runtime, () => this.runner.dispatch(mirror.definition, runtime, { type: 'startRequested' }, 'start requested'))))
      started.push(sourceTopic.name)
    }
    await this.keepStartPatterns(mirror, request.patterns ?? [])
    return withSkipped({ topics: started }, plan.skipped)
  }

  /** Adds start patterns to topics.include (KIP-1279.md §6.3: "Patterns saved"), each once. */
  private async keepStartPatterns(mirror: MirrorRuntime, patterns: string[]): Promise<void> {
    const include = mirror.definition.config['topics.include']
    const added = [...new Set(patterns)].filter((pattern) => !include.includes(pattern))
    if (added.length === 0) return
    const definition = { ...mirror.definition, config: { ...mirror.definition.config, 'topics.include': [...include, ...added] } }
    await this.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: definition.name }, value: definition }])
    mirror.definition = definition
    this.emit({ type: 'mirror', mirror: definition.name, change: 'updated' })
  }

  /** A topic can be (re)started when no other mirror on the destination owns it, with the same topic id on both sides, and no loop. */
  private async assertTopicsStartable(mirrorName: string, destinationCluster: string, topics: TopicDescription[], source?: SourceCluster): Promise<void> {
    const host = this.cluster(destinationCluster).host
    if (source) await this.assertNoMirrorLoop(source, host, topics.map((topic) => topic.name))
    for (const topic of topics) {
      const [existing] = await host.describeTopics([topic.name])
      if (existing && existing.topicId !== topic.topicId) {
        throw new EngineError('CONFLICT', `topic ${topic.name} exists on ${destinationCluster} with a different topic id`)
      }
      for (const other of this.mirrors.values()) {
        // This mirror's own partitions are the start's preconditions (planStart), checked before.
        if (other.definition.destinationCluster !== destinationCluster || other.definition.name === mirrorName) continue
        const busy = other.partitions.ofTopic(topic.name).filter((runtime) => runtime.value.state !== 'STOPPED' && runtime.value.state !== 'UNKNOWN')
        if (busy.length === 0) continue
        throw new EngineError('CONFLICT', `topic ${topic.name} is mirrored by ${other.definition.name}`)
      }
    }
  }

  /**
   * Refuses a start that would mirror a topic back to a cluster that is still mirroring it from us
   * (KIP-1279.md §11 #19), before anything is changed; PREPARING checks again for races.
   */
  private async assertNoMirrorLoop(source: SourceCluster, host: MirrorHost, topics: string[]): Promise<void> {
    const destinationClusterId = await host.clusterId()
    const hosted = await this.reachSource(source, () => source.listHostedMirrors())
    const loop = findMirrorLoop(hosted, destinationClusterId, topics)
    if (loop) throw mirrorLoopRefusal(loop)
  }

  pauseTopics(mirror: string, topics?: string[]) {
    return this.requestOnTopics(mirror, topics, 'pause', 'pauseRequested')
  }

  resumeTopics(mirror: string, topics?: string[]) {
    return this.requestOnTopics(mirror, topics, 'resume', 'resumeRequested')
  }

  recoverTopics(mirror: string, topics?: string[]) {
    return this.requestOnTopics(mirror, topics, 'recover', 'recoverRequested')
  }

  /**
   * Plans the command against every selected partition (lib/mirror/preconditions.ts) before changing
   * any, so a refused request changes nothing; then dispatches the event to the partitions it applies to.
   */
  private async requestOnTopics(mirrorName: string, topics: string[] | undefined, command: MirrorCommand, eventType: MirrorEventType): Promise<CommandResult> {
    const mirror = this.requireMirror(mirrorName)
    const named = topics !== undefined && topics.length > 0
    const { apply, skipped } = planOrRefuse(command, this.selectPartitions(mirror, topics), { named, mirror: mirrorName })
    await Promise.all(apply.map((runtime) => this.runner.withLock(runtime, () => this.runner.dispatch(mirror.definition, runtime, { type: eventType } as MirrorEvent, `${eventType} by operator`))))
    return withSkipped({ topics: [...new Set(apply.map((runtime) => runtime.topic))] }, skipped)
  }

  private selectPartitions(mirror: MirrorRuntime, topics: string[] | undefined): PartitionRuntime[] {
    const all = [...mirror.partitions.values()]
    if (!topics || topics.length === 0) return all
    const unknown = topics.filter((topic) => !mirror.partitions.hasTopic(topic))
    if (unknown.length > 0) throw new EngineError('NOT_FOUND', `mirror ${mirror.definition.name} does not mirror ${unknown.join(', ')}`)
    const wanted = new Set(topics)
    return all.filter((runtime) => wanted.has(runtime.topic))
  }

  // FAILOVER

  async failoverPlan(mirrorName: string, topics?: string[]): Promise<FailoverPlan> {
    const mirror = this.requireMirror(mirrorName)
    const { definition } = mirror
    const runtimes = this.selectPartitions(mirror, topics).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
    const { source, host } = this.cluster(definition.sourceCluster, definition.destinationCluster)
    const topicNames = [...new Set(runtimes.map((runtime) => runtime.topic))]
    const sourceTopics = await withTimeout(source.describeTopics(topicNames), 5_000).catch(() => null)
    const sourceGroups = sourceTopics ? await withTimeout(source.listGroupOffsets(), 5_000).catch(() => null) : null
    const destinationTopics = await host.describeTopics(topicNames)
    const destinationGroups = await host.listGroupOffsets()
    const partitions: FailoverPartitionInput[] = []
    for (const runtime of runtimes) {
      const tp = { topic: runtime.topic, partition: runtime.partition }
      const destination = destinationTopics.find((topic) => topic.name === runtime.topic)?.partitions.find((p) => p.partition === runtime.partition)
      const sourcePartition = sourceTopics?.find((topic) => topic.name === runtime.topic)?.partitions.find((p) => p.partition === runtime.partition)
      const destinationLogEndOffset = destination?.logEndOffset ?? 0
      const oldestUnmirroredTimestamp =
        sourcePartition && sourcePartition.logEndOffset > destinationLogEndOffset ? await this.sourceTimestampAt(source, tp, destinationLogEndOffset) : null
      const groupIds = new Set([...(sourceGroups ?? []), ...destinationGroups].map((group) => group.groupId))
      const consumerGroups: ConsumerGroupPosition[] = []
      for (const groupId of groupIds) {
        const find = (groups: typeof destinationGroups | null) =>
          groups?.find((group) => group.groupId === groupId)?.offsets.find((o) => o.topic === tp.topic && o.partition === tp.partition)?.offset ?? null
        const sourceCommittedOffset = find(sourceGroups)
        const destinationCommittedOffset = find(destinationGroups)
        if (sourceCommittedOffset === null && destinationCommittedOffset === null) continue
        consumerGroups.push({ groupId, sourceCommittedOffset, destinationCommittedOffset })
      }
      partitions.push({
        topic: runtime.topic,
        partition: runtime.partition,
        state: runtime.value.state,
        destinationLogEndOffset,
        lastMirrorPosition: runtime.value.lastMirrorPosition,
        source: sourcePartition ? { logEndOffset: sourcePartition.logEndOffset, oldestUnmirroredTimestamp } : null,
        openTransactions: await host.openTransactions(tp),
        consumerGroups,
      })
    }
    return buildFailoverPlan({ mirror: mirrorName, now: this.now(), sourceReachable: sourceTopics !== null, partitions })
  }

  private async sourceTimestampAt(source: SourceCluster, tp: TopicPartition, offset: number): Promise<number | null> {
    try {
      const [result] = await withTimeout(source.fetch([{ ...tp, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: 1 }], { maxBytes: 1 }), 5_000)
      if (!result?.ok || result.records.byteLength === 0) return null
      const [first] = splitBatches(result.records)
      return first ? first.header.baseTimestamp : null
    } catch {
      return null
    }
  }

  /**
   * The failover (STOPPING) of the selected partitions, as an operation that runs on. The operation is
   * durable before this resolves (so before the caller's 202): a crash from then on resumes it at restart.
   */
  async failover(mirrorName: string, request: { topics?: string[]; confirm?: string; force?: string[]; requestedBy?: OperationRequester }): Promise<{ operation: Operation }> {
    const mirror = this.requireMirror(mirrorName)
    if (request.confirm !== mirrorName) {
      throw new EngineError('CONFIRMATION_REQUIRED', `type the mirror name "${mirrorName}" as confirm to fail over`)
    }
    const named = request.topics !== undefined && request.topics.length > 0
    planOrRefuse('stop', this.selectPartitions(mirror, request.topics), { named, mirror: mirrorName })
    const plan = await this.failoverPlan(mirrorName, request.topics)
    const gates = decideGates(plan.gates, request.force)
    if (!gates.canProceed) throw gateRefusal(gates, plan.gates)
    // Planned again: the preflight awaited the clusters, and a partition may have moved meanwhile.
    const { apply: runtimes } = planOrRefuse('stop', this.selectPartitions(mirror, request.topics), { named, mirror: mirrorName })
    const operation = await this.operations.accept({
      mirror: mirrorName,
      plan: toFailoverPlan(plan),
      requestedBy: request.requestedBy ?? null,
      forcedGates: gates.forced.map((gate) => gate.name),
      runtimes,
    })
    return { operation }
  }

  /** Sends the stop to each partition, a bounded number at once; one partition's failure never stops the rest. */
  private async stopPartitions(mirrorName: string, runtimes: PartitionRuntime[], onEach: (runtime: PartitionRuntime) => void): Promise<void> {
    const mirror = this.mirrors.get(mirrorName)
    if (!mirror) return
    const queue = [...runtimes]
    const worker = async () => {
      for (let runtime = queue.shift(); runtime; runtime = queue.shift()) {
        const current = runtime
        await this.runner
          .withLock(current, () => this.runner.dispatch(mirror.definition, current, { type: 'stopRequested' }, 'failover requested'))
          .catch((error: unknown) => this.log('failover of a partition failed', { topic: current.topic, partition: current.partition, error: errorMessage(error) }))
        onEach(current)
      }
    }
    await Promise.all(Array.from({ length: Math.min(FAILOVER_CONCURRENCY, Math.max(1, queue.length)) }, worker))
  }

  /** Resolves once the operation's partitions have all had their stop, with the outcome durable if it finished (tests, scripts). */
  awaitOperation(id: string): Promise<Operation> {
    return this.operations.awaitOperation(id)
  }

  getOperation(id: string): Operation {
    return this.operations.get(id)
  }

  /** Newest first; history kept as operation-store.ts's retention says. */
  listOperations(filter: OperationFilter = {}): Operation[] {
    return this.operations.list(filter)
  }

  // READS

  /** Frozen snapshots: the same object again for a partition that reads the same as when last asked. */
  partitions(mirrorName: string, filter: { topic?: string; state?: MirrorPartitionState } = {}): Array<Readonly<PartitionSnapshot>> {
    const mirror = this.requireMirror(mirrorName)
    const snapshots: Array<Readonly<PartitionSnapshot>> = []
    for (const runtime of mirror.partitions.values()) {
      if (filter.topic !== undefined && runtime.topic !== filter.topic) continue
      if (filter.state !== undefined && runtime.value.state !== filter.state) continue
      snapshots.push(this.snapshotOf(runtime))
    }
    return snapshots.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
  }

  /** What a mirror's state version is made of (commands/state-version.ts), without building snapshots. */
  stateVersionInputs(mirrorName: string): { definition: MirrorDefinition; partitionCount: number; stateEpochSum: number } {
    const mirror = this.requireMirror(mirrorName)
    let stateEpochSum = 0
    for (const runtime of mirror.partitions.values()) stateEpochSum += runtime.value.stateEpoch
    return { definition: mirror.definition, partitionCount: mirror.partitions.size, stateEpochSum }
  }

  partitionHistory(mirrorName: string, topic: string, partition: number) {
    const runtime = this.requireMirror(mirrorName).partitions.get({ topic, partition })
    if (!runtime) throw new EngineError('NOT_FOUND', `mirror ${mirrorName} has no partition ${topic}-${partition}`)
    return [...runtime.transitions]
  }

  lagSeries(mirrorName: string, query: { topic?: string; from?: number; to?: number; stepMs?: number } = {}) {
    const mirror = this.requireMirror(mirrorName)
    const series: Array<{ topic: string; partition: number; points: LagPoint[] }> = []
    for (const runtime of mirror.partitions.values()) {
      if (query.topic !== undefined && runtime.topic !== query.topic) continue
      const history = mirror.lagHistory.get(runtime)
      series.push({ topic: runtime.topic, partition: runtime.partition, points: history ? history.points({ from: query.from, to: query.to, stepMs: query.stepMs }) : [] })
    }
    return series.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
  }

  mirrorSummary(name: string) {
    const mirror = this.requireMirror(name)
    const partitionsByState: Partial<Record<MirrorPartitionState, number>> = {}
    let maxOffsetLag = 0
    let totalOffsetLag = 0
    let maxTimeLagMs = 0
    for (const runtime of mirror.partitions.values()) {
      partitionsByState[runtime.value.state] = (partitionsByState[runtime.value.state] ?? 0) + 1
      if (runtime.value.state !== 'MIRRORING') continue
      const lag = this.lagOf(runtime)
      maxOffsetLag = Math.max(maxOffsetLag, lag.offsetLag ?? 0)
      totalOffsetLag += lag.offsetLag ?? 0
      maxTimeLagMs = Math.max(maxTimeLagMs, lag.timeLagMs ?? 0)
    }
    return {
      ...mirror.definition,
      partitionsByState,
      maxOffsetLag,
      totalOffsetLag,
      maxTimeLagMs,
      mirroredRecords: mirror.mirroredRecords,
      mirroredBytes: mirror.mirroredBytes,
      ...this.throttles.status(mirror.definition, this.now()),
    }
  }

  /** What a source cluster answers about the mirrors it hosts (DescribeClusterMirrors), for MirrorDirectory. */
  hostedMirrors(clusterName: string, filter: { topics?: string[] } = {}): HostedMirror[] {
    const wanted = filter.topics ? new Set(filter.topics) : null
    return [...this.mirrors.values()]
      .filter((mirror) => mirror.definition.destinationCluster === clusterName && (!wanted || mirror.definition.topics.some((topic) => wanted.has(topic))))
      .map((mirror) => ({
        name: mirror.definition.name,
        sourceClusterId: mirror.definition.sourceClusterId,
        topics: [...mirror.definition.topics],
        partitionStates: Object.fromEntries(
          [...mirror.partitions.values()].filter((runtime) => !wanted || wanted.has(runtime.topic)).map((runtime) => [topicPartitionName(runtime), runtime.value.state]),
        ),
      }))
  }

  /** Max last mirror position per partition over mirrors hosted on `clusterName` whose source is `sourceClusterId`. */
  lastMirrorPositions(clusterName: string, sourceClusterId: string, partitions: TopicPartition[]): Map<string, LastMirrorPosition> {
    const positions = new Map<string, LastMirrorPosition>()
    for (const mirror of this.mirrors.values()) {
      if (mirror.definition.destinationCluster !== clusterName || mirror.definition.sourceClusterId !== sourceClusterId) continue
      for (const tp of partitions) {
        const position = mirror.partitions.get(tp)?.value.lastMirrorPosition
        if (!position) continue
        const key = topicPartitionName(tp)
        const current = positions.get(key)
        if (!current || position.epoch > current.epoch || (position.epoch === current.epoch && position.offset > current.offset)) {
          positions.set(key, { epoch: position.epoch, offset: position.offset })
        }
      }
    }
    return positions
  }

  private snapshotOf(runtime: PartitionRuntime): Readonly<PartitionSnapshot> {
    const value = runtime.value
    const lag = value.state === 'MIRRORING' ? this.lagOf(runtime) : { offsetLag: null, timeLagMs: null }
    const position = value.lastMirrorPosition
    const truncation = value.lastTruncation
    const stoppingStep = value.state === 'STOPPING' || value.state === 'STOPPED' ? (value.stopping?.step ?? null) : null
    const snapshot = {
      topic: runtime.topic,
      partition: runtime.partition,
      state: value.state,
      stateEpoch: value.stateEpoch,
      stateSince: value.stateSince,
      previousState: value.previousState,
      retryAttempt: value.retryAttempt,
      error: value.error,
      sourceHighWatermark: runtime.sourceHighWatermark,
      destinationHighWatermark: runtime.destinationHighWatermark,
      destinationLogEndOffset: runtime.destinationLogEndOffset,
      offsetLag: lag.offsetLag,
      timeLagMs: lag.timeLagMs,
      lastFetchAt: runtime.lastFetchAt,
      destinationLeaderEpoch: runtime.destinationLeaderEpoch,
      lastMirrorPosition: position ? { epoch: position.epoch, offset: position.offset } : null,
      lastTruncation: truncation ? { offset: truncation.offset, removedRecords: truncation.removedRecords, at: truncation.at, reason: truncation.reason } : null,
      stoppingStep,
      [jsonTemplate]: undefined as JsonTemplate | undefined,
    } satisfies PartitionSnapshot & { [jsonTemplate]: JsonTemplate | undefined }
    const last = runtime.lastSnapshot
    const difference = last === null ? 'different' : compareSnapshots(last, snapshot)
    if (difference === 'same') return last!
    // A snapshot that moved in lastFetchAt alone reads like the last one around that value: the response
    // encoder reuses the last one's JSON.
    snapshot[jsonTemplate] = (difference === 'lastFetchAt' ? templateOf(last!) : undefined) ?? new JsonTemplate('lastFetchAt')
    // Frozen only when kept: most calls return the last snapshot and drop this one. A literal, not a spread:
    // freezing spread copies made building a list ~10× slower.
    if (snapshot.lastMirrorPosition) Object.freeze(snapshot.lastMirrorPosition)
    if (snapshot.lastTruncation) Object.freeze(snapshot.lastTruncation)
    runtime.lastSnapshot = Object.freeze(snapshot)
    return runtime.lastSnapshot
  }

  // INTERNALS

  private context(mirror: MirrorDefinition, topic: string | null): TransitionContext {
    const configs = topic === null ? {} : (this.destinationTopicConfigs.get(`${mirror.destinationCluster}\u0000${topic}`) ?? {})
    return {
      now: this.now(),
      random: this.random,
      retryConfig: {
        initialBackoffMs: mirror.config['mirror.failed.retry.initial.backoff.ms'],
        maxBackoffMs: mirror.config['mirror.failed.retry.max.backoff.ms'],
        maxAttempts: mirror.config['mirror.failed.retry.max.attempts'],
      },
      mirrorSupportUncleanLeaderElection: configs[MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION] === 'true',
    }
  }

  /** Destination topic configs as last described; the guards read `mirror.support.unclean.leader.election` from it. */
  private readonly destinationTopicConfigs = new Map<string, Record<string, string>>()

  private rememberDestinationTopics(clusterName: string, topics: TopicDescription[]): void {
    for (const topic of topics) this.destinationTopicConfigs.set(`${clusterName}\u0000${topic.name}`, topic.configs)
  }

  private cluster(name: string): { source: SourceCluster; host: MirrorHost }
  private cluster(sourceName: string, destinationName: string): { source: SourceCluster; host: MirrorHost }
  private cluster(first: string, second?: string): { source: SourceCluster; host: MirrorHost } {
    const source = this.clusters.get(first)
    if (!source) throw new EngineError('NOT_FOUND', `cluster ${first} not found`)
    if (second === undefined) return source
    const destination = this.clusters.get(second)
    if (!destination) throw new EngineError('NOT_FOUND', `cluster ${second} not found`)
    return { source: source.source, host: destination.host }
  }

  private readonly stateStores = new Map<string, MirrorStateStore>()
  private readonly throttles = new ReplicationThrottles()
  private readonly leadershipWatch = new LeadershipWatch({
    now: () => this.now(),
    host: (mirror) => this.cluster(mirror.destinationCluster).host,
    store: (mirror) => this.stateStore(mirror.destinationCluster),
    partitions: (mirror) => this.requireMirror(mirror.name).partitions.values(),
    withLock: (runtime, work) => this.runner.withLock(runtime, work),
    dispatch: (mirror, runtime, event, reason) => this.runner.dispatch(mirror, runtime, event, reason),
    needsAttention: (runtime) => this.mirrors.get(runtime.mirror)?.attention.add(runtime),
    log: (message, fields) => this.log(message, fields),
  })

  /** One store per destination cluster, so concurrent state writes share appends. */
  private stateStore(clusterName: string): MirrorStateStore {
    let store = this.stateStores.get(clusterName)
    if (!store) this.stateStores.set(clusterName, (store = new MirrorStateStore(this.cluster(clusterName).host)))
    return store
  }

  private requireMirror(name: string): MirrorRuntime {
    const mirror = this.mirrors.get(name)
    if (!mirror) throw new EngineError('NOT_FOUND', `mirror ${name} not found`)
    return mirror
  }

  private async reachSource<T>(_source: SourceCluster, call: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(call(), 10_000)
    } catch (error) {
      if (error instanceof EngineError) throw error
      const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : ''
      if (code === 'NOT_FOUND' || code === 'VALIDATION_FAILED') throw error
      throw new EngineError('SOURCE_UNAVAILABLE', `source cluster unreachable: ${errorMessage(error)}`, { cause: error })
    }
  }

  private newMirrorRuntime(definition: MirrorDefinition): MirrorRuntime {
    return {
      definition,
      sourceLeaders: new TopicPartitionMap(),
      partitions: new TopicPartitionMap(),
      nextSyncAt: this.now(),
      missingTopicSyncs: new Map(),
      mirroredRecords: 0,
      mirroredBytes: 0,
      lastLagSampleAt: 0,
      lagHistory: new TopicPartitionMap(),
      lagMinute: { t: 0, worst: new TopicPartitionMap() },
      fetchInterrupt: null,
      attention: new Set(),
    }
  }

  private emit(event: EngineEvent): void {
    if (event.type === 'partition') this.operations.onPartitionTransition(event.mirror, event.topic, event.partition)
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (error) {
        this.log('listener failed', { error: String(error) })
      }
    }
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
      }),
    ])
  } finally {
    if (timer) clearTimeout(timer)
  }
}
