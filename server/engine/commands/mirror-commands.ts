import 'server-only'
import type { MirrorConfig } from '../types'
import { assertName, resolveConfig } from '../config/mirror-config'
import type { EngineContext } from '../engine-context'
import { EngineError } from '../errors'
import { assertTopicsStartable } from '../preparing/start-checks'
import { dispatchAll } from '../runner/dispatch-all'
import type { MirrorRuntime } from '../state/mirror-runtime'
import type { MirrorDefinition } from '../types'
import { planOrRefuse } from './preconditions'
import { startTopics } from './topic-commands'

export interface CreateMirrorInput {
  name: string
  sourceCluster: string
  destinationCluster: string
  topics?: string[]
  topicsInclude?: string[]
  topicsExclude?: string[]
  config?: Partial<MirrorConfig>
}

export async function createMirror(ctx: EngineContext, input: CreateMirrorInput): Promise<MirrorDefinition> {
  assertName(input.name, 'mirror')
  if (ctx.state.has(input.name)) throw new EngineError('CONFLICT', `mirror ${input.name} already exists`)
  if (input.sourceCluster === input.destinationCluster) throw new EngineError('VALIDATION_FAILED', 'a mirror needs two different clusters')
  const { source } = ctx.clusters.cluster(input.sourceCluster, input.destinationCluster)
  const config = resolveConfig(input)
  const topics = input.topics ?? []
  for (const topic of topics) assertName(topic, 'topic')
  const sourceClusterId = await ctx.clusters.reachSource(() => source.clusterId())
  const sourceTopics = await ctx.clusters.reachSource(() => source.describeTopics(topics))
  const missing = topics.filter((topic) => !sourceTopics.some((described) => described.name === topic))
  if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${input.sourceCluster}: ${missing.join(', ')}`)
  await assertTopicsStartable(ctx, input.name, input.destinationCluster, sourceTopics, source)
  const definition: MirrorDefinition = {
    name: input.name,
    sourceCluster: input.sourceCluster,
    destinationCluster: input.destinationCluster,
    sourceClusterId,
    topics: [],
    config,
    createdAt: ctx.now(),
  }
  await ctx.clusters.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: definition.name }, value: definition }])
  const runtime = ctx.state.add(definition)
  ctx.state.emit({ type: 'mirror', mirror: definition.name, change: 'created' })
  if (topics.length > 0) await startTopics(ctx, definition.name, { topics })
  // The first sync discovers topics matching topics.include.
  runtime.nextSyncAt = ctx.now()
  return definition
}

export async function deleteMirror(ctx: EngineContext, name: string): Promise<void> {
  const mirror = ctx.state.require(name)
  // A mirror without partitions has nothing to stop and may go.
  if (mirror.partitions.size > 0) planOrRefuse('delete', [...mirror.partitions.values()], { named: true, mirror: name })
  await ctx.clusters.stateStore(mirror.definition.destinationCluster).write([
    ...[...mirror.partitions.values()].flatMap((runtime) => [
      { key: { kind: 'partition' as const, mirror: name, topicId: runtime.topicId, partition: runtime.partition }, value: null },
      { key: { kind: 'position' as const, mirror: name, topicId: runtime.topicId, partition: runtime.partition }, value: null },
    ]),
    { key: { kind: 'mirror', mirror: name }, value: null },
  ])
  ctx.state.delete(name)
  ctx.throttles.forget(name)
  ctx.leadership.forget(name)
  ctx.state.emit({ type: 'mirror', mirror: name, change: 'deleted' })
}

export async function updateMirrorConfig(ctx: EngineContext, name: string, patch: Partial<MirrorConfig>): Promise<MirrorDefinition> {
  const mirror = ctx.state.require(name)
  const config = resolveConfig({ config: { ...mirror.definition.config, ...patch } })
  const definition = { ...mirror.definition, config }
  await writeDefinition(ctx, mirror, definition)
  mirror.nextSyncAt = ctx.now()
  return definition
}

/** Adds start patterns to topics.include (KIP-1279.md §6.3: "Patterns saved"), each once. */
export async function keepStartPatterns(ctx: EngineContext, mirror: MirrorRuntime, patterns: string[]): Promise<void> {
  const include = mirror.definition.config['topics.include']
  const added = [...new Set(patterns)].filter((pattern) => !include.includes(pattern))
  if (added.length === 0) return
  await writeDefinition(ctx, mirror, { ...mirror.definition, config: { ...mirror.definition.config, 'topics.include': [...include, ...added] } })
}

/** A changed definition: durable first, then held and announced. */
async function writeDefinition(ctx: EngineContext, mirror: MirrorRuntime, definition: MirrorDefinition): Promise<void> {
  await ctx.clusters.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: definition.name }, value: definition }])
  mirror.definition = definition
  ctx.state.emit({ type: 'mirror', mirror: definition.name, change: 'updated' })
}

/**
 * A client changed a destination topic's configs: the ones the state machine watches apply now, not at
 * the next sync (KIP-1279.md §2.3): `remote.storage.enable` fails the topic's mirror partitions for good
 * (§11 #36), `mirror.support.unclean.leader.election` is what the next divergence is judged by.
 */
export async function destinationTopicConfigsChanged(ctx: EngineContext, clusterName: string, topic: string): Promise<void> {
  for (const mirror of ctx.state.all()) {
    if (mirror.definition.destinationCluster !== clusterName || !mirror.definition.topics.includes(topic)) continue
    const [description] = await ctx.clusters.cluster(clusterName).host.describeTopics([topic])
    if (!description) continue
    ctx.clusters.rememberDestinationTopics(clusterName, [description])
    if (description.configs['remote.storage.enable'] !== 'true') continue
    const active = mirror.partitions.ofTopic(topic).filter((runtime) => runtime.value.state !== 'STOPPED' && runtime.value.state !== 'STOPPING')
    await dispatchAll(ctx, mirror, active, { type: 'tieredStorageDetected' })
  }
}
