import 'server-only'
import type {
  CreateMirrorRequest,
  FailoverPlan as ApiFailoverPlan,
  FailoverRequest,
  LagResponse,
  Mirror,
  MirrorList,
  MirrorPartition,
  MirrorPartitionState,
  MirrorSummary,
  PartitionHistory,
  StartTopicsRequest,
  TruncationPlan,
} from '@/lib/api/mirrors'
import type { Operation as ApiOperation } from '@/lib/api/operations'
import type { FailoverPlan } from '@/lib/mirror/failover-plan'
import type { ClusterRegistry } from '@/server/cluster/registry'
import { DEFAULT_MIRROR_CONFIG, type MirrorEngine } from './engine'
import { EngineError } from './errors'
import { guardFailover } from './failover-guard'
import { splitBrainField } from './split-brain-watch'
import type { MirrorConfig, Operation } from './types'

/**
 * The mirror endpoints of API.md over the engine: engine shapes become API shapes, and dry runs check
 * what the real request would refuse before they plan, so a dry run that answers a plan is one the
 * operator can run for real. Every list is built in one pass over the partitions (10,000 partitions per
 * mirror stay a linear walk).
 */

/** What the dry runs need to know of clusters beyond the engine. */
export interface ClusterLookup {
  /** NOT_FOUND for an unknown cluster. */
  clusterId(cluster: string): Promise<string>
  /** The cluster's (non-internal) topics; NOT_FOUND for an unknown cluster. */
  topics(cluster: string): Promise<Array<{ name: string; topicId: string }>>
}

/** Topic and group patterns match whole names, as the engine applies them. */
function compile(pattern: string): RegExp {
  try {
    return new RegExp(`^(?:${pattern})$`)
  } catch (error) {
    throw new EngineError('VALIDATION_FAILED', `invalid topic pattern ${JSON.stringify(pattern)}`, { cause: error })
  }
}

function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((pattern) => pattern.test(name))
}

/** Only the keys given: the engine spreads the patch over the current config, so an undefined would erase one. */
function configPatch(config: CreateMirrorRequest['config']): Partial<MirrorConfig> {
  return Object.fromEntries(Object.entries(config ?? {}).filter(([, value]) => value !== undefined))
}

function checkBackoff(config: Partial<MirrorConfig>): void {
  const initial = config['mirror.failed.retry.initial.backoff.ms']
  const max = config['mirror.failed.retry.max.backoff.ms']
  if (initial !== undefined && max !== undefined && initial > max) {
    throw new EngineError('VALIDATION_FAILED', 'mirror.failed.retry.initial.backoff.ms must not exceed mirror.failed.retry.max.backoff.ms')
  }
}

export function toFailoverPlan(plan: FailoverPlan): ApiFailoverPlan {
  return {
    mirror: plan.mirror,
    canProceed: plan.canProceed,
    gates: plan.gates.map((gate) => ({ name: gate.name, ok: gate.ok, severity: gate.severity, detail: gate.detail })),
    partitions: plan.partitions.map((partition) => ({
      topic: partition.topic,
      partition: partition.partition,
      state: partition.state,
      action: partition.action,
      mirroredOffset: partition.mirroredOffset,
      sourceLogEndOffset: partition.sourceLogEndOffset,
      recordsAtRisk: partition.recordsAtRisk,
      timeAtRiskMs: partition.timeAtRiskMs,
      transactionsToAbort: partition.transactionsToAbort.map(({ producerId, producerEpoch, firstOffset }) => ({ producerId, producerEpoch, firstOffset })),
      consumerGroupsBehind: partition.consumerGroupsBehind.map((group) => ({ ...group })),
    })),
  }
}

/** `step` is the step a partition performs next: removeFetcher until its stop begins (API.md "Operations"). */
export function toOperation(operation: Operation, options: { withPlan?: boolean } = {}): ApiOperation {
  return {
    id: operation.id,
    kind: operation.kind,
    mirror: operation.mirror,
    status: operation.status,
    startedAt: operation.startedAt,
    finishedAt: operation.finishedAt,
    partitions: operation.partitions.map((partition) => ({
      topic: partition.topic,
      partition: partition.partition,
      step: partition.step ?? (partition.state === 'STOPPED' ? 'done' : 'removeFetcher'),
      state: partition.state,
      error: partition.error,
    })),
    ...(operation.requestedBy === undefined ? {} : { requestedBy: operation.requestedBy }),
    ...(operation.forcedGates === undefined ? {} : { forcedGates: [...operation.forcedGates] }),
    ...(options.withPlan ? { plan: toFailoverPlan(operation.plan) } : {}),
  }
}

export class MirrorApi {
  constructor(
    private readonly engine: MirrorEngine,
    private readonly clusters: ClusterLookup,
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
      maxTimeLagMs: summary.maxTimeLagMs,
      ...splitBrainField(this.engine, name),
    }
  }

  list(): MirrorList {
    return { mirrors: this.engine.listMirrors().map((definition) => this.summary(definition.name)) }
  }

  get(name: string): Mirror {
    const summary = this.summary(name)
    return { ...summary, config: { ...this.engine.getMirror(name).config } }
  }

  async create(request: CreateMirrorRequest): Promise<Mirror> {
    const config = configPatch(request.config)
    checkBackoff(config)
    await this.engine.createMirror({
      name: request.name,
      sourceCluster: request.sourceCluster,
      destinationCluster: request.destinationCluster,
      ...(request.topics === undefined ? {} : { topics: request.topics }),
      ...(request.topicsInclude === undefined ? {} : { topicsInclude: request.topicsInclude }),
      ...(request.topicsExclude === undefined ? {} : { topicsExclude: request.topicsExclude }),
      config,
    })
    return this.get(request.name)
  }

  /**
   * The truncation plan of every partition the new mirror would start: the named topics now, and those
   * its include patterns match, which its first sync starts. Refuses what `create` would refuse.
   */
  async planCreate(request: CreateMirrorRequest): Promise<TruncationPlan> {
    if (this.engine.listMirrors().some((definition) => definition.name === request.name)) {
      throw new EngineError('CONFLICT', `mirror ${request.name} already exists`)
    }
    const config = configPatch(request.config)
    checkBackoff(config)
    // The engine's precedence: topicsInclude/topicsExclude over config keys over defaults.
    const include = (request.topicsInclude ?? config['topics.include'] ?? DEFAULT_MIRROR_CONFIG['topics.include']).map(compile)
    const exclude = (request.topicsExclude ?? config['topics.exclude'] ?? DEFAULT_MIRROR_CONFIG['topics.exclude']).map(compile)
    const sourceTopics = await this.clusters.topics(request.sourceCluster)
    await this.clusters.clusterId(request.destinationCluster)
    const topics = new Set(request.topics ?? [])
    if (include.length > 0) {
      for (const { name } of sourceTopics) if (matchesAny(name, include) && !matchesAny(name, exclude)) topics.add(name)
    }
    await this.assertStartable(request.name, request.sourceCluster, request.destinationCluster, [...topics], sourceTopics)
    const plan = await this.engine.planStart({ sourceCluster: request.sourceCluster, destinationCluster: request.destinationCluster, topics: [...topics], mirror: request.name })
    return { mirror: request.name, partitions: plan.partitions }
  }

  async updateConfig(name: string, config: CreateMirrorRequest['config']): Promise<Mirror> {
    const patch = configPatch(config)
    checkBackoff({ ...this.engine.getMirror(name).config, ...patch })
    await this.engine.updateMirrorConfig(name, patch)
    return this.get(name)
  }

  async delete(name: string): Promise<void> {
    await this.engine.deleteMirror(name)
  }

  // TOPICS

  async start(name: string, request: StartTopicsRequest): Promise<{ topics: string[] }> {
    return this.engine.startTopics(name, {
      ...(request.topics === undefined ? {} : { topics: request.topics }),
      ...(request.patterns === undefined ? {} : { patterns: request.patterns }),
    })
  }

  async planStart(name: string, request: StartTopicsRequest): Promise<TruncationPlan> {
    const definition = this.engine.getMirror(name)
    const sourceTopics = await this.clusters.topics(definition.sourceCluster)
    const patterns = (request.patterns ?? []).map(compile)
    const topics = new Set(request.topics ?? [])
    for (const { name: topic } of sourceTopics) if (matchesAny(topic, patterns)) topics.add(topic)
    const missing = [...topics].filter((topic) => !sourceTopics.some((described) => described.name === topic))
    if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${definition.sourceCluster}: ${missing.join(', ')}`)
    await this.assertStartable(name, definition.sourceCluster, definition.destinationCluster, [...topics], sourceTopics)
    const plan = await this.engine.planStart({ sourceCluster: definition.sourceCluster, destinationCluster: definition.destinationCluster, topics: [...topics], mirror: name })
    return { mirror: name, partitions: plan.partitions }
  }

  pause(name: string, topics: string[] | undefined): Promise<{ topics: string[] }> {
    return this.engine.pauseTopics(name, topics)
  }

  resume(name: string, topics: string[] | undefined): Promise<{ topics: string[] }> {
    return this.engine.resumeTopics(name, topics)
  }

  recover(name: string, topics: string[] | undefined): Promise<{ topics: string[] }> {
    return this.engine.recoverTopics(name, topics)
  }

  /**
   * What the engine checks before it starts topics (no other mirror on the destination owns them, this
   * mirror is not already running them, the same topic id on both sides, no mirror loop), so a dry run
   * reports the same refusal the real start would.
   */
  private async assertStartable(
    mirrorName: string,
    sourceCluster: string,
    destinationCluster: string,
    topics: readonly string[],
    sourceTopics: ReadonlyArray<{ name: string; topicId: string }>,
  ): Promise<void> {
    if (topics.length === 0) return
    const wanted = new Set(topics)
    const destinationClusterId = await this.clusters.clusterId(destinationCluster)
    for (const hosted of this.engine.hostedMirrors(sourceCluster)) {
      if (hosted.sourceClusterId !== destinationClusterId) continue
      for (const topic of hosted.topics) {
        if (!wanted.has(topic)) continue
        const live = Object.entries(hosted.partitionStates).find(([key, state]) => key.startsWith(`${topic}-`) && state !== 'STOPPED')
        if (live) {
          throw new EngineError('CONFLICT', `mirror loop: mirror ${hosted.name} on the source still mirrors ${topic} from this cluster (${live[1]}); fail it over or stop it first`, {
            details: { mirror: hosted.name, topic },
          })
        }
      }
    }
    const sourceIds = new Map(sourceTopics.map((topic) => [topic.name, topic.topicId]))
    for (const topic of await this.clusters.topics(destinationCluster)) {
      const sourceId = sourceIds.get(topic.name)
      if (wanted.has(topic.name) && sourceId !== undefined && sourceId !== topic.topicId) {
        throw new EngineError('CONFLICT', `topic ${topic.name} exists on ${destinationCluster} with a different topic id`)
      }
    }
    for (const definition of this.engine.listMirrors()) {
      if (definition.destinationCluster !== destinationCluster) continue
      if (!definition.topics.some((topic) => wanted.has(topic))) continue
      for (const partition of this.engine.partitions(definition.name)) {
        if (!wanted.has(partition.topic) || partition.state === 'STOPPED' || partition.state === 'UNKNOWN') continue
        if (definition.name !== mirrorName) throw new EngineError('CONFLICT', `topic ${partition.topic} is mirrored by ${definition.name}`)
        throw new EngineError('INVALID_MIRROR_STATE', `topic ${partition.topic} is already ${partition.state} in mirror ${mirrorName}`, {
          details: { partitions: [{ topic: partition.topic, partition: partition.partition, state: partition.state }] },
        })
      }
    }
  }

  // FAILOVER

  async failoverPlan(name: string, topics: string[] | undefined): Promise<ApiFailoverPlan> {
    return toFailoverPlan(await this.engine.failoverPlan(name, topics))
  }

  async failover(name: string, request: FailoverRequest, requestedBy?: string): Promise<{ operation: string; plan: ApiFailoverPlan }> {
    this.engine.getMirror(name)
    const { operation } = await guardFailover(this.engine, name, request.topics, () =>
      this.engine.failover(name, {
        ...(request.topics === undefined ? {} : { topics: request.topics }),
        ...(request.confirm === undefined ? {} : { confirm: request.confirm }),
        ...(request.force === undefined ? {} : { force: request.force }),
        ...(requestedBy === undefined ? {} : { requestedBy }),
      }),
    )
    return { operation: operation.id, plan: toFailoverPlan(operation.plan) }
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
    return states === null || single !== undefined ? snapshots : snapshots.filter((snapshot) => states.has(snapshot.state))
  }

  history(name: string, topic: string, partition: number): PartitionHistory {
    return { transitions: this.engine.partitionHistory(name, topic, partition).map((transition) => ({ ...transition })) }
  }

  lag(name: string, query: { topic?: string; from?: number; to?: number; stepMs?: number }): LagResponse {
    if (query.topic !== undefined) this.assertMirrorsTopic(name, query.topic)
    const series = this.engine.lagSeries(name, {
      ...(query.topic === undefined ? {} : { topic: query.topic }),
      ...(query.from === undefined ? {} : { from: query.from }),
      ...(query.to === undefined ? {} : { to: query.to }),
      ...(query.stepMs === undefined ? {} : { stepMs: query.stepMs }),
    })
    return {
      series: series.map(({ topic, partition, points }) => ({
        topic,
        partition,
        points: points.map(([time, offsetLag, timeLagMs]) => [time, offsetLag, timeLagMs]),
      })),
    }
  }

  operations(status: ApiOperation['status'] | undefined): ApiOperation[] {
    return this.engine
      .listOperations(status)
      .sort((a, b) => b.startedAt - a.startedAt)
      .map((operation) => toOperation(operation))
  }

  operation(id: string): ApiOperation {
    return toOperation(this.engine.getOperation(id), { withPlan: true })
  }

  private assertMirrorsTopic(name: string, topic: string): void {
    if (!this.engine.getMirror(name).topics.includes(topic)) throw new EngineError('NOT_FOUND', `mirror ${name} does not mirror ${topic}`)
  }
}

/** The API over the server's engine and cluster registry. */
export function mirrorApiOf(runtime: { engine: MirrorEngine; clusters: ClusterRegistry }): MirrorApi {
  return new MirrorApi(runtime.engine, {
    clusterId: (cluster) => runtime.clusters.embedded(cluster).clusterId(),
    topics: async (cluster) => (await runtime.clusters.embedded(cluster).describeTopics()).map(({ name, topicId }) => ({ name, topicId })),
  })
}
