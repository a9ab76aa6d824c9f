import 'server-only'
import type { MirrorObjectivesResponse } from '@/lib/api/objectives'
import type {
  CreateMirrorRequest,
  Emulation,
  FailoverPlan as ApiFailoverPlan,
  FailoverRequest,
  LagResponse,
  Mirror,
  MirrorList,
  MirrorPartition,
  MirrorPartitionState,
  MirrorSummary,
  PartitionHistory,
  RecoverTopicsRequest,
  StartTopicsRequest,
  TruncationPlan,
  UnfenceRequest,
  UnfenceResponse,
  MirrorFencesResponse,
} from '@/lib/api/mirrors'
import type { Operation as ApiOperation } from '@/lib/api/operations'
import type { MirrorTimeline } from '@/lib/api/mirror-timeline'
import type { SplitBrain } from '@/lib/api/split-brain'
import { mirrorTimeline } from '@/lib/overview/mirror-timeline'
import { describeEntries, type DescribeEntry, type DescribeStateNames } from '@/lib/mirror/describe-entries'
import { lagByTopic } from '@/lib/mirror/lag-by-topic'
import { mirrorRpoStatus } from './mirror-rpo-status'
import type { ClusterRegistry } from '@/server/cluster/registry'
import type { CommandConditions, CreateMirrorInput, MirrorEngine } from '../engine/engine'
import type { CommandResult } from '../engine/commands/preconditions'
import { EngineError } from '../engine/errors'
import { toFailoverPlan } from '../engine/operations/failover-plan-view'
import { switchoverPlanView } from '../engine/switchover/switchover-command'
import type { ResolvedMirrorConfig, FailoverOperation, OperationRequester } from '../engine/types'

export { toFailoverPlan }
export type { CommandConditions, StateVersionCondition } from '../engine/engine'

/**
 * The mirror endpoints of API.md over the engine: API requests become engine commands (their If-Match passed
 * as the command's precondition) and engine shapes become API shapes; nothing more. The command discipline
 * (one command of a mirror at a time, the state-version check, one operation per partition) is the engine's
 * own (server/engine/commands/command-queue.ts). Dry runs answer the engine's own plans, so a dry run that
 * answers a plan is one the operator can run for real. Every list is built in one pass over the partitions
 * (10,000 partitions per mirror stay a linear walk).
 */

/** What the dry runs need to know of clusters beyond the engine. */
export interface ClusterLookup {
  /** NOT_FOUND for an unknown cluster. */
  clusterId(cluster: string): Promise<string>
  /** The cluster's (non-internal) topics; NOT_FOUND for an unknown cluster. */
  topics(cluster: string): Promise<Array<{ name: string; topicId: string }>>
  /** What a destination that is not native emulates (a Kafka cluster), for a mirror into it or one mirror partition; null when native. */
  emulation?(cluster: string, tp?: { topic: string; partition: number }): Emulation | null
}

/** What the split-brain guard knows of a mirror (server/engine/failover/split-brain-watch.ts, run by the composition root). */
export interface SplitBrainReader {
  forMirror(mirror: string): SplitBrain | null
}

/** The keys whose value is defined (exactOptionalPropertyTypes: an undefined is not an absent key). */
function definedOnly<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> }
}

/** Only the keys given: the engine spreads the patch over the current config, so an undefined would erase one. */
function configPatch(config: CreateMirrorRequest['config']): Partial<ResolvedMirrorConfig> {
  return Object.fromEntries(Object.entries(config ?? {}).filter(([, value]) => value !== undefined))
}

/**
 * A copy in the API's shape (the engine's object changes as the operation runs). `step` is the step a
 * partition performs next: removeFetcher until its stop begins (API.md "Operations"). The plan is never
 * changed once accepted, so it is shared, not copied.
 */
export function toOperation(operation: FailoverOperation, options: { withPlan?: boolean } = {}): ApiOperation {
  return {
    id: operation.id,
    kind: operation.kind,
    mirror: operation.mirror,
    status: operation.status,
    startedAt: operation.startedAt,
    finishedAt: operation.finishedAt,
    requestedBy: operation.requestedBy
      ? { actor: operation.requestedBy.actor, ...(operation.requestedBy.actorName === undefined ? {} : { actorName: operation.requestedBy.actorName }), role: operation.requestedBy.role }
      : null,
    resumedAt: [...operation.resumedAt],
    partitions: operation.partitions.map((partition) => ({
      topic: partition.topic,
      partition: partition.partition,
      step: partition.step ?? (partition.state === 'STOPPED' ? 'done' : 'removeFetcher'),
      state: partition.state,
      error: partition.error,
      finishedAt: partition.finishedAt,
    })),
    ...(operation.forcedGates === undefined ? {} : { forcedGates: [...operation.forcedGates] }),
    ...(operation.type === undefined ? {} : { type: operation.type }),
    ...(operation.switchover === undefined ? {} : { switchover: structuredClone(operation.switchover) }),
    ...(options.withPlan ? { plan: operation.plan } : {}),
  }
}

function emulationField(emulation: Emulation | null): { emulation?: Emulation } {
  return emulation === null ? {} : { emulation }
}

/** What summaries say of a mirror's drills (server/drills/drills.ts), when the server runs them. */
export interface DrillCadenceReader {
  cadence(mirror: string): Omit<NonNullable<MirrorSummary['drills']>, 'running'>
  runningOf(mirror: string): { id: string } | null
  /** The mirror's drills, newest first: the objectives hold their measured RTO to rtoSeconds. */
  list(mirror: string): { drills: ReadonlyArray<{ id: string; status: string; startedAt: number; rtoMs: number | null }> }
}

export class MirrorApi {
  constructor(
    private readonly engine: MirrorEngine,
    private readonly clusters: ClusterLookup,
    /** The split-brain guard, when the server runs one: summaries carry its `splitBrain` field then. */
    private readonly splitBrain?: SplitBrainReader,
    /** The drills, when the server runs them: summaries carry their `drills` field then. */
    private readonly drills?: DrillCadenceReader,
    /** This instance's id when several share the work: summaries name it as their `owner` then. */
    private readonly instanceId?: string,
  ) {}

  // MIRRORS

  summary(name: string): MirrorSummary {
    const summary = this.engine.mirrorSummary(name)
    return {
      name: summary.name,
      sourceCluster: summary.sourceCluster,
      destinationCluster: summary.destinationCluster,
      topics: [...summary.topics],
      partitionsByState: { ...summary.partitionsByState },
      maxOffsetLag: summary.maxOffsetLag,
      totalOffsetLag: summary.totalOffsetLag,
      maxTimeLagMs: summary.maxTimeLagMs,
      lagKnown: summary.lagKnown,
      lagAsOf: summary.lagAsOf,
      throttled: summary.throttled,
      throttledRate: summary.throttledRate,
      throughput: summary.throughput,
      objectives: mirrorRpoStatus(this.engine, name),
      ...(this.splitBrain === undefined ? {} : { splitBrain: this.splitBrain.forMirror(name) }),
      ...emulationField(this.clusters.emulation?.(summary.destinationCluster) ?? null),
      ...(this.drills === undefined ? {} : { drills: { ...this.drills.cadence(name), running: this.drills.runningOf(name)?.id ?? null } }),
      ...(this.instanceId === undefined ? {} : { owner: this.instanceId }),
    }
  }

  /** ListClusterMirrors with its filters: exact mirror and source cluster names, any partition in one of `state`. */
  list(query: { name?: string; sourceCluster?: string; state?: MirrorPartitionState[] } = {}): MirrorList {
    const states = query.state && query.state.length > 0 ? query.state : null
    const mirrors = this.engine
      .listMirrors()
      .filter((definition) => (query.name === undefined || definition.name === query.name) && (query.sourceCluster === undefined || definition.sourceCluster === query.sourceCluster))
      .map((definition) => this.summary(definition.name))
      .filter((summary) => states === null || states.some((state) => (summary.partitionsByState[state] ?? 0) > 0))
    return { mirrors }
  }

  get(name: string): Mirror {
    const summary = this.summary(name)
    return { ...summary, config: { ...this.engine.getMirror(name).config }, stateVersion: this.stateVersion(name) }
  }

  /** The mirror's state version (GET's ETag; If-Match compares with it). */
  stateVersion(name: string): string {
    return this.engine.stateVersion(name)
  }

  async create(request: CreateMirrorRequest): Promise<Mirror> {
    await this.engine.createMirror(createInput(request))
    return this.get(request.name)
  }

  /**
   * The engine's plan of the create (every check the real create makes), then the truncation plan of every
   * partition the new mirror would start: the named topics now, and those its include patterns match, which
   * its first sync starts.
   */
  async planCreate(request: CreateMirrorRequest): Promise<TruncationPlan> {
    const plan = await this.engine.planCreateMirror(createInput(request))
    const topics = [...plan.topics, ...plan.discovered]
    const truncation = await this.engine.planStart({ sourceCluster: request.sourceCluster, destinationCluster: request.destinationCluster, topics, mirror: request.name })
    return { mirror: request.name, partitions: truncation.partitions }
  }

  async updateConfig(name: string, config: CreateMirrorRequest['config'], conditions?: CommandConditions): Promise<Mirror> {
    await this.engine.updateMirrorConfig(name, configPatch(config), conditions)
    return this.get(name)
  }

  async delete(name: string, conditions?: CommandConditions): Promise<void> {
    await this.engine.deleteMirror(name, conditions)
  }

  async unfence(name: string, request: UnfenceRequest, conditions?: CommandConditions): Promise<UnfenceResponse> {
    const { sourceCluster, unfenced } = await this.engine.unfence(name, request, conditions)
    return { mirror: name, sourceCluster, unfenced: unfenced.map(({ topic, operation, since }) => ({ topic, operation, since })) }
  }

  async objectives(name: string): Promise<MirrorObjectivesResponse> {
    return { mirror: name, ...(await this.engine.objectivesOf(name, this.drills?.list(name).drills ?? [])) }
  }

  async fences(name: string): Promise<MirrorFencesResponse> {
    const { sourceCluster, fences } = await this.engine.writeFencesOf(name)
    return { mirror: name, sourceCluster, fences: fences.map(({ topic, operation, since }) => ({ topic, operation, since })) }
  }

  // TOPICS

  start(name: string, request: StartTopicsRequest, conditions?: CommandConditions): Promise<CommandResult> {
    return this.engine.startTopics(name, startInput(request), conditions)
  }

  /** The engine's own plan of the start (every check the real start makes), then its truncation plan. */
  async planStart(name: string, request: StartTopicsRequest, conditions?: CommandConditions): Promise<TruncationPlan> {
    const plan = await this.engine.planTopicStart(name, startInput(request), conditions)
    const definition = this.engine.getMirror(name)
    if (plan.topics.length === 0) return { mirror: name, partitions: [] }
    const truncation = await this.engine.planStart({ sourceCluster: definition.sourceCluster, destinationCluster: definition.destinationCluster, topics: plan.topics.map((topic) => topic.name), mirror: name })
    return { mirror: name, partitions: truncation.partitions }
  }

  pause(name: string, topics: string[] | undefined, conditions?: CommandConditions): Promise<CommandResult> {
    return this.engine.pauseTopics(name, topics, conditions)
  }

  resume(name: string, topics: string[] | undefined, conditions?: CommandConditions): Promise<CommandResult> {
    return this.engine.resumeTopics(name, topics, conditions)
  }

  /** By topics (all of the mirror's without names) or by exactly the named partitions. */
  recover(name: string, request: RecoverTopicsRequest, conditions?: CommandConditions): Promise<CommandResult> {
    if (request.partitions !== undefined) return this.engine.recoverPartitions(name, request.partitions, conditions)
    return this.engine.recoverTopics(name, request.topics, conditions)
  }

  // FAILOVER

  async failoverPlan(name: string, topics: string[] | undefined, conditions?: CommandConditions, request: Pick<FailoverRequest, 'type' | 'drainTimeoutMs' | 'transactionGraceMs' | 'force'> = {}): Promise<ApiFailoverPlan> {
    if (request.type === 'planned') {
      return switchoverPlanView(await this.engine.switchoverPlan(name, { ...definedOnly({ topics, drainTimeoutMs: request.drainTimeoutMs, transactionGraceMs: request.transactionGraceMs, force: request.force }) }, conditions))
    }
    return { ...toFailoverPlan(await this.engine.failoverPlan(name, topics, conditions)), type: 'unplanned' }
  }

  /** Cancels a planned switchover before it stops (it rolls back); the operation as it is now. */
  cancelOperation(id: string, by: string): ApiOperation {
    return toOperation(this.engine.cancelOperation(id, by))
  }

  /** Resolves once the operation is durable (the caller answers 202 only then); the engine refuses a second one over the same partitions. */
  async failover(
    name: string,
    request: FailoverRequest,
    conditions?: CommandConditions,
    requestedBy?: OperationRequester,
  ): Promise<{ operation: string; plan: ApiFailoverPlan }> {
    const { operation } = await this.engine.failover(
      name,
      {
        ...(request.topics === undefined ? {} : { topics: request.topics }),
        ...(request.confirm === undefined ? {} : { confirm: request.confirm }),
        ...(request.force === undefined ? {} : { force: request.force }),
        ...definedOnly({ type: request.type, drainTimeoutMs: request.drainTimeoutMs, transactionGraceMs: request.transactionGraceMs }),
        ...(requestedBy === undefined ? {} : { requestedBy }),
      },
      conditions,
    )
    return { operation: operation.id, plan: operation.plan }
  }

  /** The running failover of a mirror, if any (the failover page follows it instead of offering a second). */
  runningFailover(name: string): ApiOperation | null {
    const running = this.engine.runningOperation(name)
    return running === null ? null : toOperation(running)
  }

  // READS

  partitions(name: string, query: { topic?: string; state?: MirrorPartitionState[] }): MirrorPartition[] {
    if (query.topic !== undefined) this.assertMirrorsTopic(name, query.topic)
    const states = query.state && query.state.length > 0 ? new Set(query.state) : null
    const single = states?.size === 1 ? [...states][0] : undefined
    const snapshots = this.engine.partitions(name, {
      ...(query.topic === undefined ? {} : { topic: query.topic }),
      ...(single === undefined ? {} : { state: single }),
    })
    const destination = this.engine.getMirror(name).destinationCluster
    const emulated = (snapshot: MirrorPartition) => ({ ...snapshot, ...emulationField(this.clusters.emulation?.(destination, snapshot) ?? null) })
    return (states === null || single !== undefined ? snapshots : snapshots.filter((snapshot) => states.has(snapshot.state))).map(emulated)
  }

  /** The partitions as Kafka's `kafka-cluster-mirrors.sh --describe --json` prints them (lib/mirror/describe-entries.ts). */
  describe(name: string, query: { failed?: boolean; stateNames?: DescribeStateNames }): DescribeEntry[] {
    const partitions = this.engine.partitions(name, query.failed === true ? { state: 'FAILED' } : {})
    return describeEntries(name, partitions, query.stateNames ?? 'api')
  }

  /** The mirror's incident timeline (lib/overview/mirror-timeline.ts) from every partition's history. */
  timeline(name: string): MirrorTimeline {
    const partitions = this.engine.partitions(name).map(({ topic, partition }) => ({ topic, partition, transitions: this.engine.partitionHistory(name, topic, partition) }))
    return { entries: mirrorTimeline(partitions) }
  }

  history(name: string, topic: string, partition: number): PartitionHistory {
    return { transitions: this.engine.partitionHistory(name, topic, partition).map((transition) => ({ ...transition })) }
  }

  lag(name: string, query: { topic?: string; from?: number; to?: number; stepMs?: number; by?: 'partition' | 'topic' }): LagResponse {
    if (query.topic !== undefined) this.assertMirrorsTopic(name, query.topic)
    const series = this.engine.lagSeries(name, {
      ...(query.topic === undefined ? {} : { topic: query.topic }),
      ...(query.from === undefined ? {} : { from: query.from }),
      ...(query.to === undefined ? {} : { to: query.to }),
      ...(query.stepMs === undefined ? {} : { stepMs: query.stepMs }),
    })
    const { throttled, throttledRate } = this.engine.mirrorSummary(name)
    const from = query.from ?? 0
    // The step whose buckets the per-topic answer folds; undefined: the per-partition answer.
    const topicStepMs = query.by === 'topic' ? query.stepMs : undefined
    return {
      series: topicStepMs !== undefined
        ? []
        : series.map(({ topic, partition, points }) => ({
            topic,
            partition,
            points: points.map(([time, offsetLag, timeLagMs]) => [time, offsetLag, timeLagMs]),
          })),
      ...(topicStepMs === undefined ? {} : { topics: lagByTopic(series, topicStepMs) }),
      lagUnknown: this.engine.lagUnknownSpans(name, from, query.to),
      throughput: this.engine.throughputHistory(name, query.from).map(([time, recordsPerSecond, bytesPerSecond]) => [time, recordsPerSecond, bytesPerSecond]),
      // Lag that grows while throttled is the rate's doing, not the link's.
      throttled,
      throttledRate,
    }
  }

  /** Newest first. */
  operations(query: { status?: ApiOperation['status'] | undefined; mirror?: string | undefined; limit?: number | undefined } = {}): ApiOperation[] {
    return this.engine.listOperations(query).map((operation) => toOperation(operation))
  }

  operation(id: string): ApiOperation {
    return toOperation(this.engine.getOperation(id), { withPlan: true })
  }

  private assertMirrorsTopic(name: string, topic: string): void {
    if (!this.engine.getMirror(name).topics.includes(topic)) throw new EngineError('NOT_FOUND', `mirror ${name} does not mirror ${topic}`)
  }
}

/** The API over the server's engine, cluster registry and split-brain guard. */
export function mirrorApiOf(runtime: { engine: MirrorEngine; clusters: ClusterRegistry; splitBrain?: SplitBrainReader | null; drills?: DrillCadenceReader; ha?: { instanceId: string } | null }): MirrorApi {
  return new MirrorApi(
    runtime.engine,
    {
      clusterId: (cluster) => runtime.clusters.ports(cluster).source.clusterId(),
      topics: async (cluster) => (await runtime.clusters.ports(cluster).source.describeTopics()).map(({ name, topicId }) => ({ name, topicId })),
      emulation: (cluster, tp) => runtime.clusters.emulation(cluster, tp),
    },
    runtime.splitBrain ?? undefined,
    runtime.drills,
    runtime.ha?.instanceId,
  )
}

function startInput(request: StartTopicsRequest): { topics?: string[]; patterns?: string[] } {
  return {
    ...(request.topics === undefined ? {} : { topics: request.topics }),
    ...(request.patterns === undefined ? {} : { patterns: request.patterns }),
  }
}

/** The engine's create input from the API request (API.md). */
function createInput(request: CreateMirrorRequest): CreateMirrorInput {
  const config = configPatch(request.config)
  return {
    name: request.name,
    sourceCluster: request.sourceCluster,
    destinationCluster: request.destinationCluster,
    ...(request.topics === undefined ? {} : { topics: request.topics }),
    ...(request.topicsInclude === undefined ? {} : { topicsInclude: request.topicsInclude }),
    ...(request.topicsExclude === undefined ? {} : { topicsExclude: request.topicsExclude }),
    config,
  }
}
