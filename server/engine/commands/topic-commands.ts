import 'server-only'
import type { MirrorEvent } from '@/lib/mirror/events'
import type { MirrorCommand } from '@/lib/mirror/preconditions'
import type { MirrorEventType } from '@/lib/mirror/states'
import { TopicPartitionMap, type TopicPartition } from '@/lib/mirror/topic-partition'
import { createMirrorPartition } from '@/lib/mirror/transition'
import type { TopicDescription } from '@/server/cluster/ports'
import { assertName, syncedTopicConfigs } from '../config/mirror-config'
import { compilePattern, matchesAny } from '../config/topic-patterns'
import { forEachConcurrently } from '@/server/util/cooperative'
import { PARTITION_CONCURRENCY, type ClusterAccess, type EngineClock, type EngineLog, type OperationsAccess, type PartitionDispatch, type PartitionStore } from '../engine-context'
import { EngineError } from '../errors'
import { assertTopicsStartable } from '../preparing/start-checks'
import type { EngineMirror } from '../state/engine-mirror'
import type { PartitionRuntime } from '../types'
import { keepStartPatterns } from './mirror-definition'
import { rebuildPlannedTopics } from './rebuild-topics'
import { planOrRefuse, planStartOrRefuse, runtimeStates, withSkipped, type CommandResult, type SkippedPartition } from './preconditions'

/** A start of topics, validated: what `applyTopicStart` does, and what a dry run answers. */
export interface TopicStartPlan {
  readonly mirror: string
  /** The source topics to start, as described when planned. */
  readonly topics: readonly TopicDescription[]
  /** Partitions of those topics left alone (not STOPPED or UNKNOWN, the topic only matched by a pattern). */
  readonly skipped: readonly SkippedPartition[]
  /** Patterns to keep in topics.include (KIP-1279.md §6.3). */
  readonly patterns: readonly string[]
}

/**
 * Every check of a start, in one place (the real start and its dry run both plan with it): names, patterns,
 * topics known at the source, running operations, the partitions' states, then the destination's (topic id,
 * other mirrors, no mirror loop). Changes nothing.
 */
export async function planTopicStart(ctx: ClusterAccess & OperationsAccess & PartitionStore, mirrorName: string, request: { topics?: string[]; patterns?: string[] }): Promise<TopicStartPlan> {
  const mirror = ctx.state.require(mirrorName)
  const { definition } = mirror
  const { source } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  const named = [...new Set(request.topics ?? [])]
  for (const topic of named) assertName(topic, 'topic')
  const patterns = (request.patterns ?? []).map((pattern) => compilePattern(pattern))
  const sourceTopics = await ctx.clusters.reachSource(() => source.describeTopics())
  // topics.exclude wins over a pattern as it does over topics.include (KIP-1279.md §7.3): a topic started here
  // that the exclude matched would be stopped by the next sync.
  const exclude = definition.config['topics.exclude']
  const matched = sourceTopics.filter((topic) => patterns.some((pattern) => pattern.matches(topic.name)) && !matchesAny(topic.name, exclude)).map((topic) => topic.name)
  const missing = named.filter((topic) => !sourceTopics.some((described) => described.name === topic))
  if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${definition.sourceCluster}: ${missing.join(', ')}`)
  // A running failover's stopped partitions stay stopped until it has finished: a restart resumes the
  // operation from the partitions' states and must not find one of them mirroring again. Checked before the
  // state preconditions, so the operator learns which operation is in the way, not just a state.
  for (const topic of named) {
    const [running] = ctx.operations.runningOn(mirrorName, topic)
    if (running) throw new EngineError('INVALID_MIRROR_STATE', `topic ${topic} is part of running operation ${running}; start it once that has finished`, { details: { operation: running } })
  }
  const matchedFree = matched.filter((topic) => ctx.operations.runningOn(mirrorName, topic).length === 0)
  const wanted = new Set([...named, ...matchedFree])
  const plan = planStartOrRefuse(mirrorName, named, matchedFree, runtimeStates([...mirror.partitions.values()].filter((runtime) => wanted.has(runtime.topic))))
  const starting = new Set(plan.topics)
  const selected = sourceTopics.filter((topic) => starting.has(topic.name))
  await assertTopicsStartable(ctx, mirrorName, definition.destinationCluster, selected, source)
  return { mirror: mirrorName, topics: selected, skipped: plan.skipped, patterns: [...new Set(request.patterns ?? [])] }
}

/**
 * Starts (or restarts after STOPPED) mirroring of the plan's topics: each partition goes to PREPARING. Patterns
 * are added to the mirror's topics.include, so topics created on the source later are discovered.
 */
export async function applyTopicStart(ctx: ClusterAccess & EngineClock & EngineLog & PartitionDispatch & PartitionStore, plan: TopicStartPlan): Promise<CommandResult> {
  const mirror = ctx.state.require(plan.mirror)
  const { definition } = mirror
  const mirrorName = plan.mirror
  const host = ctx.clusters.cluster(definition.destinationCluster).host
  const skipped = TopicPartitionMap.of(plan.skipped.map((p) => [p, true] as const))
  const started: string[] = []
  const starts: Array<Promise<void>> = []
  await rebuildPlannedTopics(ctx, definition, plan.topics, plan.skipped)
  for (const sourceTopic of plan.topics) {
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
      await ctx.clusters.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: mirrorName }, value: mirror.definition }])
    }
    const runtimes: PartitionRuntime[] = []
    for (const { partition } of sourceTopic.partitions) {
      const tp = { topic: sourceTopic.name, partition }
      if (skipped.has(tp)) continue
      let runtime = mirror.partitions.get(tp)
      if (!runtime) {
        runtime = ctx.state.newPartition({ mirror: mirrorName, topic: sourceTopic.name, topicId: destination.topicId, partition }, createMirrorPartition(ctx.now()))
        mirror.partitions.set(runtime, runtime)
      }
      runtimes.push(runtime)
    }
    // Not awaited here: the next topic is created while this one's partitions prepare (10 topics of 1,000
    // partitions were created one after the other, each waiting for the previous one's PREPARING), and a
    // bound with a shared time slice instead of 1,000 dispatches at once (a stall of the event loop).
    const starting = forEachConcurrently(runtimes, PARTITION_CONCURRENCY, (runtime) =>
      ctx.runner.withLock(runtime, () => ctx.runner.dispatch(mirror.definition, runtime, { type: 'startRequested' }, 'start requested')),
    )
    // Awaited below; a later topic's failure must not leave this rejection unhandled meanwhile.
    starting.catch(() => undefined)
    starts.push(starting)
    started.push(sourceTopic.name)
  }
  await Promise.all(starts)
  await keepStartPatterns(ctx, mirror, [...plan.patterns])
  return withSkipped({ topics: started }, plan.skipped)
}

/** Plans the start, then applies it. */
export async function startTopics(ctx: ClusterAccess & EngineClock & EngineLog & OperationsAccess & PartitionDispatch & PartitionStore, mirrorName: string, request: { topics?: string[]; patterns?: string[] }): Promise<CommandResult> {
  return applyTopicStart(ctx, await planTopicStart(ctx, mirrorName, request))
}

/**
 * Plans the command against every selected partition (lib/mirror/preconditions.ts) before changing
 * any, so a refused request changes nothing; then dispatches the event to the partitions it applies to.
 */
export async function requestOnTopics(ctx: PartitionDispatch & PartitionStore, mirrorName: string, topics: string[] | undefined, command: MirrorCommand, eventType: MirrorEventType): Promise<CommandResult> {
  const mirror = ctx.state.require(mirrorName)
  const named = topics !== undefined && topics.length > 0
  const { apply, skipped } = planOrRefuse(command, selectPartitions(mirror, topics), { named, mirror: mirrorName })
  await Promise.all(apply.map((runtime) => ctx.runner.withLock(runtime, () => ctx.runner.dispatch(mirror.definition, runtime, { type: eventType } as MirrorEvent, `${eventType} by operator`))))
  return withSkipped({ topics: [...new Set(apply.map((runtime) => runtime.topic))] }, skipped)
}

/**
 * The command on exactly the named partitions (a row's "Retry now"): every one must be mirrored (NOT_FOUND
 * otherwise) and meet the command's precondition (INVALID_MIRROR_STATE naming each one in the way otherwise),
 * checked for all before any is changed; then the event goes to each, as requestOnTopics does.
 */
export async function requestOnPartitions(ctx: PartitionDispatch & PartitionStore, mirrorName: string, partitions: readonly TopicPartition[], command: MirrorCommand, eventType: MirrorEventType): Promise<CommandResult> {
  const mirror = ctx.state.require(mirrorName)
  const { apply } = planOrRefuse(command, selectNamedPartitions(mirror, partitions), { named: true, mirror: mirrorName })
  await Promise.all(apply.map((runtime) => ctx.runner.withLock(runtime, () => ctx.runner.dispatch(mirror.definition, runtime, { type: eventType } as MirrorEvent, `${eventType} by operator (partition ${runtime.topic}-${runtime.partition})`))))
  return { topics: [...new Set(apply.map((runtime) => runtime.topic))], partitions: apply.map((runtime) => ({ topic: runtime.topic, partition: runtime.partition })) }
}

/** The named partitions, each once, in the order named; NOT_FOUND listing those the mirror does not mirror. */
export function selectNamedPartitions(mirror: EngineMirror, partitions: readonly TopicPartition[]): PartitionRuntime[] {
  const seen = new TopicPartitionMap<true>()
  const found: PartitionRuntime[] = []
  const unknown: TopicPartition[] = []
  for (const tp of partitions) {
    if (seen.has(tp)) continue
    seen.set(tp, true)
    const runtime = mirror.partitions.get(tp)
    if (runtime) found.push(runtime)
    else unknown.push({ topic: tp.topic, partition: tp.partition })
  }
  if (unknown.length > 0) {
    const names = unknown.slice(0, 5).map((tp) => `${tp.topic}-${tp.partition}`)
    const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''
    throw new EngineError('NOT_FOUND', `mirror ${mirror.definition.name} does not mirror ${names.join(', ')}${more}`, { details: { partitions: unknown.slice(0, 1000) } })
  }
  return found
}

/** The partitions of the named topics (all of the mirror's without names); NOT_FOUND for a topic it does not mirror. */
export function selectPartitions(mirror: EngineMirror, topics: string[] | undefined): PartitionRuntime[] {
  const all = [...mirror.partitions.values()]
  if (!topics || topics.length === 0) return all
  const unknown = topics.filter((topic) => !mirror.partitions.hasTopic(topic))
  if (unknown.length > 0) throw new EngineError('NOT_FOUND', `mirror ${mirror.definition.name} does not mirror ${unknown.join(', ')}`)
  const wanted = new Set(topics)
  return all.filter((runtime) => wanted.has(runtime.topic))
}
