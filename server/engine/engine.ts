import 'server-only'
// Over 400 lines on purpose: the engine's facade, one short method per command and read, each submitting to the command queue or delegating to its folder; the tick's phases in order.
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import type { HostedMirror, LastMirrorPosition, MirrorStateAppendEntry, TopicPartition, WriteFence } from '@/server/cluster/ports'
import { withTimeout } from '@/server/util/with-timeout'
import { EngineClusters, type EngineClusterAccess } from './cluster-access'
import { createMirror, deleteMirror, destinationTopicConfigsChanged, planCreateMirror, updateMirrorConfig, type CreateMirrorInput, type CreateMirrorPlan } from './commands/mirror-commands'
import { checkConditions, MirrorCommandQueue, type CommandConditions } from './commands/command-queue'
import type { CommandResult } from './commands/preconditions'
import { planStart } from './commands/start-plan'
import { planTopicStart, requestOnPartitions, requestOnTopics, startTopics, type TopicStartPlan } from './commands/topic-commands'
import type { EngineContext } from './engine-context'
import { failover, type FailoverRequestInput } from './failover/failover-command'
import { failoverPlan } from './failover/failover-planner'
import { liftSupersededFences } from './failover/lift-fences'
import { mirrorFences, unfenceMirror, type UnfenceInput } from './commands/unfence-command'
import { applySwitchover, planSwitchover, type SwitchoverCommandPlan, type SwitchoverRequestInput } from './switchover/switchover-command'
import { measureSwitchoverLoss, runSwitchoverPhases } from './switchover/switchover-phases'
import { classifyUnreachableDestination, errorMessage } from './failure-classification'
import { fetchRound } from './fetcher/fetch-round'
import { ReplicationThrottles } from './fetcher/replication-throttle'
import { LeadershipWatch } from './runner/leadership-watch'
import { interruptFetch } from './fetcher/fetch-state'
import type { LagArchive } from './lag/lag-archive'
import { loadLagArchive, sampleLag } from './lag/lag-sampler'
import { observeSilentSources } from './lag/source-observer'
import { driveOperation } from './operations/operation-drive'
import { OperationStore } from './operations/operation-store'
import { OperationTracker, type OperationFilter } from './operations/operation-tracker'
import { lookUpLastMirrorPosition } from './preparing/last-mirror-position'
import { hostedMirrors, lagSeries, lagUnknownSpans, lastMirrorPositions, mirrorSummary, partitionHistory, stateVersionInputs } from './queries/mirror-queries'
import { mirrorStateVersion } from './commands/state-version'
import { partitionSnapshots } from './queries/partition-snapshots'
import { mirrorFigures, type EngineMirrorFigures, type PartitionFigures } from './queries/mirror-figures'
import { mirrorObjectives, type DrillRtoInput, type MirrorObjectivesView } from './queries/objectives-query'
import { runDueWakeUps } from './runner/wake-ups'
import { dispatchAll } from './runner/dispatch-all'
import { PartitionRunner, type RunnerEnvironment } from './runner/partition-runner'
import { transitionContext } from './runner/transition-context'
import { EngineState } from './state/engine-state'
import type { PublishedPartitionChange } from './state/partition-changes'
import { countSyncError, type EngineMirror, type SyncErrorKind } from './state/engine-mirror'
import { replayMirrorState } from './state/replay'
import { stateRecordsForCopy } from './state/state-copy'
import { syncMirror } from './syncs/topic-sync'
import type { EngineEvent, ResolvedMirrorConfig, MirrorDefinition, FailoverOperation, PartitionRuntime, PartitionSnapshot, TruncationPlanResult } from './types'
import { createMirrorPartition } from '@/lib/mirror/transition'
import { RUN_EVERY_MIRROR, type MirrorOwnership, type OwnedMirror } from './ownership'
import { adoptMirror } from './state/adopt-mirror'

export { DEFAULT_MIRROR_CONFIG } from './config/mirror-config'
export type { EngineClusterAccess } from './cluster-access'
export type { CreateMirrorInput, CreateMirrorPlan } from './commands/mirror-commands'
export type { CommandConditions, StateVersionCondition } from './commands/command-queue'

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
  /** Which mirrors this engine runs (ownership.ts); without one, every mirror its clusters hold. */
  ownership?: MirrorOwnership
}

/** PREPARING's lookup asks a source that may be down: bounded, so the partition retries instead of hanging. */
const SOURCE_CALL_TIMEOUT_MS = 10_000

/**
 * The destination-side engine of KIP-1279, as a facade. It keeps one runtime per mirror partition
 * (state/), drives each through the transition table (lib/mirror) with a PartitionRunner (runner/),
 * fetches for MIRRORING partitions (fetcher/) and runs the periodic syncs (syncs/). `tick()` is one
 * deterministic iteration; `startBackground()` runs ticks on a timer in the server. Commands live in
 * commands/ and failover/, reads in queries/.
 */
export class MirrorEngine {
  private readonly ctx: EngineContext
  private readonly state: EngineState
  private readonly runner: PartitionRunner
  private readonly operations: OperationTracker
  /** Every operator command of a mirror runs through here, one at a time, its precondition first (commands/command-queue.ts). */
  private readonly commands: MirrorCommandQueue
  private timer: NodeJS.Timeout | null = null
  private ticking: Promise<void> | null = null
  private closed = false
  /** Waiting for the end of the next tick (a switchover's phases look again after each): resolved false on close. */
  private tickWaiters: Array<(ticked: boolean) => void> = []
  private readonly ownership: MirrorOwnership
  /** Adoptions and releases, one at a time in the order the assignment changed. */
  private ownershipChanges: Promise<void> = Promise.resolve()

  constructor(options: EngineOptions) {
    const now = options.now ?? Date.now
    const random = options.random ?? Math.random
    const log = options.log ?? (() => {})
    const clusters = new EngineClusters(options.clusters)
    const state = new EngineState({
      now: () => now(),
      log: (message, fields) => log(message, fields),
      onPartitionEvent: (mirror, topic, partition) => operations.onPartitionTransition(mirror, topic, partition),
    })
    const env: RunnerEnvironment = {
      now: () => now(),
      wakeUp: (runtime, reason, at) => state.get(runtime.mirror)?.timer.schedule(runtime, reason, at),
      context: (mirror, runtime) => transitionContext(clusters, now(), random, mirror, runtime.topic),
      source: (mirror) => clusters.cluster(mirror.sourceCluster).source,
      host: (mirror) => clusters.cluster(mirror.destinationCluster).host,
      store: (mirror) => clusters.stateStore(mirror.destinationCluster),
      topicPartitions: (mirror, topic) => state.require(mirror.name).partitions.ofTopic(topic),
      partition: (mirror, topic, partition) => state.get(mirror.name)?.partitions.get({ topic, partition }),
      lookUpLastMirrorPosition: (mirror, runtime) => withTimeout(lookUpLastMirrorPosition(this.ctx, mirror, runtime), SOURCE_CALL_TIMEOUT_MS),
      emit: (event) => state.emit(event),
      onStoppingAction: options.onStoppingAction,
      log: (message, fields) => log(message, fields),
      // A waiting fetch round would hold a partition that stops (or starts) fetching for up to the wait.
      fetcherChanged: (mirror) => interruptFetch(state.get(mirror.name)?.fetchInterrupt),
      liftWriteFences: (mirror, topic) => withTimeout(liftSupersededFences(clusters, state, mirror, topic), SOURCE_CALL_TIMEOUT_MS),
    }
    const runner = new PartitionRunner(env)
    const operations: OperationTracker = new OperationTracker(options.operationStore ?? OperationStore.inMemory(), {
      now: () => now(),
      log: (message, fields) => log(message, fields),
      emit: (operation, change) => state.emit({ type: 'operation', operation, change }),
      partition: (mirror, topic, partition) => state.partition(mirror, topic, partition),
      send: (kind, mirror, runtimes, onEach) => driveOperation(this.ctx, kind, mirror, runtimes, onEach),
      // A mirror given to another instance stops its switchover's phases as a close does; the new owner resumes them.
      beforeStops: (operation, hooks) => runSwitchoverPhases({ ...this.ctx, nextTick: () => this.nextTick(), closing: () => this.closed || !state.has(operation.mirror) }, operation, hooks),
      measureLoss: (operation) => measureSwitchoverLoss(this.ctx, operation),
      quiet: async (runtimes) => {
        await Promise.all(runtimes.map((runtime) => runner.withLock(runtime, async () => undefined)))
      },
    })
    const leadership = new LeadershipWatch({
      now: () => now(),
      host: (mirror) => clusters.cluster(mirror.destinationCluster).host,
      store: (mirror) => clusters.stateStore(mirror.destinationCluster),
      partitions: (mirror) => state.require(mirror.name).partitions.values(),
      withLock: (runtime, work) => runner.withLock(runtime, work),
      dispatch: (mirror, runtime, event, reason) => runner.dispatch(mirror, runtime, event, reason),
      failUnreachable: async (mirror, runtimes, error) => {
        const held = state.get(mirror.name)
        if (held && runtimes.length > 0) await dispatchAll(this.ctx, held, runtimes, { type: 'failed', ...classifyUnreachableDestination(error) })
      },
      restoreAtNextTick: (runtime) => state.get(runtime.mirror)?.timer.schedule(runtime, 'restore', now()),
      log: (message, fields) => log(message, fields),
    })
    this.state = state
    this.runner = runner
    this.ownership = options.ownership ?? RUN_EVERY_MIRROR
    this.operations = operations
    this.commands = new MirrorCommandQueue((mirror) => this.stateVersion(mirror))
    this.ctx = {
      state,
      clusters,
      runner,
      operations,
      throttles: new ReplicationThrottles(),
      leadership,
      lagArchive: options.lagArchive,
      fetchMaxWaitMs: options.fetchMaxWaitMs ?? 0,
      now: () => now(),
      random: () => random(),
      log: (message, fields) => log(message, fields),
    }
  }

  // LIFECYCLE

  /** Replays every cluster's `__mirror_state` and resumes each partition where it was. */
  async start(): Promise<void> {
    await replayMirrorState(this.ctx.clusters, this.state)
    // Another instance's mirrors are left to it (ownership.ts); the ones assigned here later are adopted then.
    const leftToOthers = new Set<string>()
    for (const mirror of [...this.state.all()]) {
      if (this.ownership.owns(mirror.definition)) continue
      this.state.delete(mirror.definition.name)
      leftToOthers.add(mirror.definition.name)
    }
    // Unfinished operations resume first: the partitions they still have to stop get the stop instead of
    // their restore, so none of them fetches again after the failover the operator was told was accepted.
    // Those of mirrors left to others are resumed by whichever instance adopts the mirror (this one, maybe).
    const stopping = this.operations.recover((mirror) => leftToOthers.has(mirror))
    for (const mirror of this.state.all()) await this.resume(mirror, stopping)
    // Assignments come later (the group is joined once the engine has started): each one is followed from then on.
    this.ownership.onChange(() => void this.reconcileOwnership())
  }

  /** Each partition continues from its persisted state (the start, an adoption). */
  private async resume(mirror: EngineMirror, stopping: ReadonlySet<PartitionRuntime> = new Set()): Promise<void> {
    await loadLagArchive(this.ctx, mirror).catch((error: unknown) => this.ctx.log('lag archive load failed', { mirror: mirror.definition.name, error: errorMessage(error) }))
    for (const runtime of mirror.partitions.values()) {
      if (stopping.has(runtime)) continue
      // Not awaited: a partition whose source is down must not hold up the server's start; the
      // per-partition lock still orders everything that follows.
      void this.runner.withLock(runtime, () => this.runner.restore(mirror.definition, runtime)).catch((error: unknown) =>
        this.ctx.log('resume failed', { mirror: mirror.definition.name, topic: runtime.topic, partition: runtime.partition, error: errorMessage(error) }),
      )
    }
    // A crash between adding a topic to the mirror and writing its partitions' first state leaves
    // partitions without a record; they start now (KIP-1279.md §2.3 row 1).
    void this.startMissingPartitions(mirror).catch((error: unknown) => this.ctx.log('start of missing partitions failed', { mirror: mirror.definition.name, error: errorMessage(error) }))
  }

  // OWNERSHIP (ownership.ts: which mirrors this instance runs when several share the work)

  /** Releases the mirrors held but no longer owned, then adopts the owned ones not held; resolves when done. */
  reconcileOwnership(): Promise<void> {
    this.ownershipChanges = this.ownershipChanges.then(async () => {
      if (this.closed) return
      for (const mirror of [...this.state.all()]) if (!this.ownership.owns(mirror.definition)) await this.releaseMirror(mirror.definition.name)
      for (const owned of this.ownership.assigned()) {
        if (this.closed || this.state.has(owned.name) || !this.ownership.owns(owned)) continue
        await this.adopt(owned).catch((error: unknown) => this.ctx.log('adopting a mirror failed', { mirror: owned.name, error: errorMessage(error) }))
      }
    })
    return this.ownershipChanges
  }

  /** Resolves once the mirror's commands submitted so far have finished (a create's caller has its answer by then). */
  commandsSettled(mirror: string): Promise<void> {
    return this.commands.idleOf(mirror)
  }

  /** The mirrors this engine runs now. */
  heldMirrors(): string[] {
    return [...this.state.all()].map((mirror) => mirror.definition.name)
  }

  private async adopt(owned: OwnedMirror): Promise<void> {
    const mirror = await adoptMirror(this.ctx.clusters, this.state, owned.name, owned.destinationCluster)
    if (!mirror) return
    // Its operations a dead or departed owner was running go on here, as after a restart (issue #40).
    const stopping = await this.operations.adopt(owned.name)
    this.ctx.log('adopted a mirror', { mirror: owned.name, partitions: mirror.partitions.size, operationStops: stopping.size })
    await this.resume(mirror, stopping)
  }

  /**
   * Stops running a mirror another instance now owns: no tick takes it any more, its held fetch is cut short,
   * and the partition work already under way finishes before this resolves. Nothing is written for it.
   */
  private async releaseMirror(name: string): Promise<void> {
    const mirror = this.state.get(name)
    if (!mirror) return
    this.state.delete(name)
    this.operations.release(name)
    interruptFetch(mirror.fetchInterrupt)
    await this.ticking
    await this.runner.settle()
    this.ctx.throttles.forget(name)
    this.ctx.leadership.forget(name)
    this.ctx.log('released a mirror', { mirror: name })
  }

  private async startMissingPartitions(mirror: EngineMirror): Promise<void> {
    const { definition } = mirror
    const host = this.ctx.clusters.cluster(definition.destinationCluster).host
    const missing: PartitionRuntime[] = []
    for (const topic of await host.describeTopics(definition.topics)) {
      for (const { partition } of topic.partitions) {
        if (mirror.partitions.has({ topic: topic.name, partition })) continue
        const runtime = this.state.newPartition({ mirror: definition.name, topic: topic.name, topicId: topic.topicId, partition }, createMirrorPartition(this.ctx.now()))
        mirror.partitions.set(runtime, runtime)
        missing.push(runtime)
      }
    }
    await dispatchAll(this.ctx, mirror, missing, { type: 'startRequested' })
  }

  /** Resolves once no partition has work queued (restores, failovers, API requests): for tests and scripts. */
  settle(): Promise<void> {
    return this.runner.settle()
  }

  startBackground(intervalMs = 100): void {
    if (this.timer || this.closed) return
    const loop = () => {
      if (this.closed) return
      const before = this.recordsMirrored()
      this.tick()
        .catch((error: unknown) => this.ctx.log('tick failed', { error: String(error) }))
        .finally(() => {
          // A round that mirrored records and left a backlog is followed at once, as Kafka's replica fetcher
          // fetches again as soon as it has appended: pausing a mirror with a backlog left its source and
          // destination idle a fifth of the time (scripts/bench/kafka.ts). A mirror that caught up waits the
          // interval, or a steady trickle of writes (the demo's) would keep the loop spinning a round per record.
          if (!this.closed) this.timer = setTimeout(loop, this.recordsMirrored() > before && this.backlogLeft() ? 0 : intervalMs)
        })
    }
    this.timer = setTimeout(loop, 0)
  }

  /** Whether some MIRRORING partition's destination is behind the source's high watermark its last fetch saw. */
  private backlogLeft(): boolean {
    for (const mirror of this.state.all()) {
      for (const runtime of mirror.partitions.values()) {
        if (runtime.value.state !== 'MIRRORING' || runtime.sourceHighWatermark === null) continue
        if (runtime.destinationLogEndOffset < runtime.sourceHighWatermark) return true
      }
    }
    return false
  }

  /** Records mirrored so far by every mirror of this engine (whether a tick moved data). */
  private recordsMirrored(): number {
    let records = 0
    for (const mirror of this.state.all()) records += mirror.mirroredRecords
    return records
  }

  async close(): Promise<void> {
    this.closed = true
    for (const waiter of this.tickWaiters.splice(0)) waiter(false)
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const mirror of this.state.all()) interruptFetch(mirror.fetchInterrupt)
    await this.ticking
    await this.ownershipChanges
    await this.operations.close()
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    return this.state.subscribe(listener)
  }

  /** @internal visible for testing: every change of a partition's runtime, as its one write path publishes it. */
  subscribePartitionChanges(listener: (published: PublishedPartitionChange) => void): () => void {
    return this.state.changes.subscribe(listener)
  }

  // ONE ITERATION

  /** One deterministic iteration: due wake-ups (restores, retries, replica waits), syncs, then one fetch round per mirror. */
  tick(): Promise<void> {
    if (this.ticking) return this.ticking
    this.ticking = this.runTick().finally(() => {
      this.ticking = null
    })
    return this.ticking
  }

  private async runTick(): Promise<void> {
    const mirrors = [...this.state.all()]
    for (const mirror of mirrors) {
      // One mirror's trouble (or one step's) never stops the others: each step is isolated.
      await this.isolated(mirror, 'wake-ups', () => runDueWakeUps(this.ctx, mirror))
      await this.isolated(mirror, 'leadership', () => this.ctx.leadership.check(mirror.definition))
      if (this.ctx.now() >= mirror.nextSyncAt) await this.isolated(mirror, 'sync', () => syncMirror(this.ctx, mirror))
    }
    // Side by side: a round may wait at its source, and one mirror's wait must not hold another's data.
    await Promise.all(mirrors.map((mirror) => this.isolated(mirror, 'fetch', () => fetchRound(this.ctx, mirror))))
    for (const mirror of mirrors) {
      await this.isolated(mirror, 'lag', () => sampleLag(this.ctx, mirror))
      observeSilentSources(this.ctx, mirror)
    }
    this.operations.checkUnsettled()
    for (const waiter of this.tickWaiters.splice(0)) waiter(true)
  }

  /** Resolves after the next tick has run; false once the engine is closing. */
  private nextTick(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false)
    return new Promise((resolve) => this.tickWaiters.push(resolve))
  }

  private async isolated(mirror: EngineMirror, step: string, work: () => Promise<void>): Promise<void> {
    try {
      await work()
    } catch (error) {
      this.ctx.log('tick step failed', { mirror: mirror.definition.name, step, error: errorMessage(error) })
      if (step === 'sync') countSyncError(mirror, 'other')
    }
  }

  // MIRRORS
  //
  // Every command takes its preconditions (the state version the caller read: If-Match) as its last argument
  // and runs through the mirror's command queue. Plans (dry runs) check the same preconditions, change nothing
  // and do not queue.

  createMirror(input: CreateMirrorInput): Promise<MirrorDefinition> {
    return this.commands.submit({ kind: 'create', mirror: input.name, run: () => createMirror(this.ctx, input, this.ownership.instanceId) })
  }

  /** Every check of a create, changing nothing: what a dry run answers and the real create applies. */
  planCreateMirror(input: CreateMirrorInput): Promise<CreateMirrorPlan> {
    return planCreateMirror(this.ctx, input)
  }

  /** The truncation plan a new mirror (or a start of topics) would apply; changes nothing. */
  planStart(input: { sourceCluster: string; destinationCluster: string; topics: string[]; mirror?: string }): Promise<TruncationPlanResult> {
    return planStart(this.ctx, input)
  }

  deleteMirror(name: string, conditions?: CommandConditions): Promise<void> {
    return this.commands.submit({ kind: 'delete', mirror: name, conditions, run: () => deleteMirror(this.ctx, name) })
  }

  /** The operator's unfence of the mirror's source (commands/unfence-command.ts), in the mirror's command lane. */
  async unfence(name: string, input: UnfenceInput, conditions?: CommandConditions): Promise<{ sourceCluster: string; unfenced: WriteFence[] }> {
    this.state.require(name)
    // Refused at once, not queued behind the running operation: an unfence that ran after the switchover it was
    // asked during would reopen the old source the moment the switchover finished.
    this.operations.refuseIfRunning(name)
    return this.commands.submit({
      kind: 'unfence',
      mirror: name,
      conditions,
      run: () => unfenceMirror({ ...this.ctx, refuseIfRunning: (mirror) => this.operations.refuseIfRunning(mirror) }, name, input),
    })
  }

  /** The write fences the mirror's switchover keeps on its source (commands/unfence-command.ts). */
  writeFencesOf(name: string): Promise<{ sourceCluster: string; fences: WriteFence[] }> {
    return mirrorFences(this.ctx, name)
  }

  updateMirrorConfig(name: string, patch: Partial<ResolvedMirrorConfig>, conditions?: CommandConditions): Promise<MirrorDefinition> {
    return this.commands.submit({ kind: 'config', mirror: name, conditions, run: () => updateMirrorConfig(this.ctx, name, patch) })
  }

  listMirrors(): MirrorDefinition[] {
    return [...this.state.all()].map((mirror) => mirror.definition)
  }

  getMirror(name: string): MirrorDefinition {
    return this.state.require(name).definition
  }

  /** The mirror's state version (KIP-1279's StateOffset: commands/state-version.ts): the API's ETag. NOT_FOUND for an unknown mirror. */
  stateVersion(name: string): string {
    return mirrorStateVersion(this.stateVersionInputs(name))
  }

  /** A client changed a destination topic's configs (commands/mirror-commands.ts). */
  destinationTopicConfigsChanged(clusterName: string, topic: string): Promise<void> {
    return destinationTopicConfigsChanged(this.ctx, clusterName, topic)
  }

  // TOPIC OPERATIONS

  /** Starts (or restarts after STOPPED) mirroring of topics (commands/topic-commands.ts). */
  startTopics(mirrorName: string, request: { topics?: string[]; patterns?: string[] }, conditions?: CommandConditions): Promise<CommandResult> {
    return this.commands.submit({ kind: 'start', mirror: mirrorName, conditions, run: () => startTopics(this.ctx, mirrorName, request) })
  }

  /** Every check of a start, changing nothing: what a dry run answers and the real start applies. */
  async planTopicStart(mirrorName: string, request: { topics?: string[]; patterns?: string[] }, conditions?: CommandConditions): Promise<TopicStartPlan> {
    checkConditions(mirrorName, conditions, () => this.stateVersion(mirrorName))
    return planTopicStart(this.ctx, mirrorName, request)
  }

  pauseTopics(mirror: string, topics?: string[], conditions?: CommandConditions): Promise<CommandResult> {
    return this.commands.submit({ kind: 'pause', mirror, conditions, run: () => requestOnTopics(this.ctx, mirror, topics, 'pause', 'pauseRequested') })
  }

  resumeTopics(mirror: string, topics?: string[], conditions?: CommandConditions): Promise<CommandResult> {
    return this.commands.submit({ kind: 'resume', mirror, conditions, run: () => requestOnTopics(this.ctx, mirror, topics, 'resume', 'resumeRequested') })
  }

  recoverTopics(mirror: string, topics?: string[], conditions?: CommandConditions): Promise<CommandResult> {
    return this.commands.submit({ kind: 'recover', mirror, conditions, run: () => requestOnTopics(this.ctx, mirror, topics, 'recover', 'recoverRequested') })
  }

  /** Retries exactly the named FAILED partitions (a row's "Retry now"); refused whole, changing nothing, when one is not FAILED. */
  recoverPartitions(mirror: string, partitions: readonly TopicPartition[], conditions?: CommandConditions): Promise<CommandResult> {
    return this.commands.submit({ kind: 'recover', mirror, conditions, run: () => requestOnPartitions(this.ctx, mirror, partitions, 'recover', 'recoverRequested') })
  }

  // FAILOVER

  async failoverPlan(mirrorName: string, topics?: string[], conditions?: CommandConditions): Promise<FailoverPreflight> {
    checkConditions(mirrorName, conditions, () => this.stateVersion(mirrorName))
    return failoverPlan(this.ctx, mirrorName, topics)
  }

  /**
   * The failover of the selected partitions, durable before this resolves (failover/failover-command.ts). A
   * second failover of partitions a running one holds is refused at once (CONFLICT naming it), and so is one
   * while another of the mirror is being started (double clicks, a second tab); the mirror's other commands
   * wait until the operation has run, so none interleaves with its stops.
   */
  async failover(mirrorName: string, request: FailoverRequestInput, conditions?: CommandConditions): Promise<{ operation: FailoverOperation }> {
    this.state.require(mirrorName)
    if (request.type === 'planned') return this.switchover(mirrorName, request, conditions)
    this.operations.refuseIfRunning(mirrorName, request.topics)
    return this.commands.submit({
      kind: 'failover',
      mirror: mirrorName,
      conditions,
      startsOperation: true,
      run: () => failover(this.ctx, mirrorName, request),
      holdUntil: ({ operation }) => this.operations.awaitOperation(operation.id),
    })
  }

  /** A planned switchover's plan (its dry run): the failover plan, its gates for a switchover, the fence it would use. */
  async switchoverPlan(mirrorName: string, request: SwitchoverRequestInput, conditions?: CommandConditions): Promise<SwitchoverCommandPlan> {
    checkConditions(mirrorName, conditions, () => this.stateVersion(mirrorName))
    return planSwitchover(this.ctx, mirrorName, request, { dryRun: true })
  }

  /**
   * A planned switchover (switchover/): durable before this resolves, then fenced, drained and stopped by its
   * phases, or rolled back. Queued and refused exactly as a failover is; the mirror's other commands wait
   * until it has finished.
   */
  async switchover(mirrorName: string, request: SwitchoverRequestInput, conditions?: CommandConditions): Promise<{ operation: FailoverOperation }> {
    this.state.require(mirrorName)
    this.operations.refuseIfRunning(mirrorName, request.topics)
    return this.commands.submit({
      kind: 'switchover',
      mirror: mirrorName,
      conditions,
      startsOperation: true,
      run: async () => applySwitchover(this.ctx, await planSwitchover(this.ctx, mirrorName, request, { dryRun: false }), request.requestedBy ?? null),
      holdUntil: ({ operation }) => this.operations.awaitOperation(operation.id),
    })
  }

  /** Cancels a planned switchover that has not begun to stop (it rolls back); CONFLICT otherwise. */
  cancelOperation(id: string, by: string): FailoverOperation {
    return this.operations.cancel(id, by)
  }

  // DRILLS (server/drills/ rehearses a failover on a copy; these are what it needs of the mirror)

  /**
   * The copy a drill takes, run as one of the mirror's commands: alone, after the commands before it, refused at
   * once (CONFLICT) while an operation of the mirror is being started or runs on these topics, so no command
   * changes the mirror while the copy is taken. The drill's own failover then runs on its copy, not here.
   */
  copyForDrill<T>(mirrorName: string, topics: readonly string[] | undefined, takeCopy: () => Promise<T>): Promise<T> {
    this.state.require(mirrorName)
    this.operations.refuseIfRunning(mirrorName, topics)
    return this.commands.submit({ kind: 'drill', mirror: mirrorName, startsOperation: true, run: takeCopy })
  }

  /** The `__mirror_state` records a copy of the destination holds for these partitions (state/state-copy.ts). */
  stateRecordsForCopy(mirrorName: string, partitions: readonly TopicPartition[], topics: readonly string[]): MirrorStateAppendEntry[] {
    return stateRecordsForCopy(this.state.require(mirrorName), partitions, topics)
  }

  /** Resolves once the operation's partitions have all had their stop, with the outcome durable if it finished (tests, scripts). */
  awaitOperation(id: string): Promise<FailoverOperation> {
    return this.operations.awaitOperation(id)
  }

  getOperation(id: string): FailoverOperation {
    return this.operations.get(id)
  }

  /** Whether this instance runs or keeps the operation, rather than knowing only another instance's shared record of it. */
  holdsOperation(id: string): boolean {
    return this.operations.holds(id)
  }

  /** Newest first; history kept as operation-store.ts's retention says. */
  listOperations(filter: OperationFilter = {}): FailoverOperation[] {
    return this.operations.list(filter)
  }

  /** The running operation of a mirror that holds any partition of `topics` (any of its partitions when absent). */
  runningOperation(mirrorName: string, topics?: readonly string[]): FailoverOperation | null {
    return this.operations.running(mirrorName, topics)
  }

  // READS

  /** Frozen snapshots: the same object again for a partition that reads the same as when last asked. */
  partitions(mirrorName: string, filter: { topic?: string; state?: MirrorPartitionState } = {}): Array<Readonly<PartitionSnapshot>> {
    return partitionSnapshots(this.state.require(mirrorName), this.ctx.now(), filter)
  }

  /** What a mirror's state version is made of (commands/state-version.ts), without building snapshots. */
  private stateVersionInputs(mirrorName: string): { definition: MirrorDefinition; partitionCount: number; stateEpochSum: number } {
    return stateVersionInputs(this.state.require(mirrorName))
  }

  partitionHistory(mirrorName: string, topic: string, partition: number) {
    return partitionHistory(this.state.require(mirrorName), topic, partition)
  }

  lagSeries(mirrorName: string, query: { topic?: string; from?: number; to?: number; stepMs?: number } = {}) {
    return lagSeries(this.state.require(mirrorName), query)
  }

  /** The spans of time when some partition's lag was not known (the chart hatches them), within [from, to]. */
  lagUnknownSpans(mirrorName: string, from: number, to: number = this.ctx.now()) {
    return lagUnknownSpans(this.state.require(mirrorName), from, to)
  }

  mirrorSummary(name: string) {
    const mirror = this.state.require(name)
    const now = this.ctx.now()
    const throttle = this.ctx.throttles.status(mirror.definition, now)
    return { ...mirrorSummary(mirror, now), ...throttle, throughput: { ...mirror.throughput.figures(now, throttle.throttledRate), asOf: now } }
  }

  /** Records and bytes per second, a point a second, over the last five minutes (the mirror page's throughput chart). */
  throughputHistory(name: string, from?: number) {
    return this.state.require(name).throughput.history(from)
  }

  /** The numbers the metrics and the alert rules read of a mirror (queries/mirror-figures.ts); `perPartition` collects the MIRRORING partitions' own. */
  /** The mirror's objectives, its recovery point against them, 30 days of compliance and its failovers' and drills' RTO (queries/objectives-query.ts). */
  objectivesOf(name: string, drills: readonly DrillRtoInput[] = []): Promise<MirrorObjectivesView> {
    return mirrorObjectives(this.state.require(name), this.operations.list({ mirror: name, status: 'succeeded' }), drills, this.ctx.lagArchive, this.ctx.now())
  }

  mirrorFigures(name: string, perPartition?: PartitionFigures[]): EngineMirrorFigures {
    return mirrorFigures(this.state.require(name), this.ctx.now(), perPartition)
  }

  /** Failed periodic syncs of a mirror since the server started, by kind. */
  syncErrors(name: string): ReadonlyMap<SyncErrorKind, number> {
    return this.state.require(name).syncErrors
  }

  /** What a source cluster answers about the mirrors it hosts (DescribeClusterMirrors), for MirrorDirectory. */
  hostedMirrors(clusterName: string, filter: { topics?: string[] } = {}): HostedMirror[] {
    return hostedMirrors(this.state, clusterName, filter)
  }

  /** Max last mirror position per partition over mirrors hosted on `clusterName` whose source is `sourceClusterId`. */
  lastMirrorPositions(clusterName: string, sourceClusterId: string, partitions: TopicPartition[]): Map<string, LastMirrorPosition> {
    return lastMirrorPositions(this.state, clusterName, sourceClusterId, partitions)
  }
}
