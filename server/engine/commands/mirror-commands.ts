import 'server-only'
import type { ResolvedMirrorConfig } from '../types'
import { assertName, resolveConfig } from '../config/mirror-config'
import { matchesFilters } from '../config/topic-patterns'
import { type ClusterAccess, type EngineClock, type EngineLog, type FetchSettings, type LagArchiveAccess, type LeadershipAccess, type OperationsAccess, type PartitionDispatch, type PartitionStore } from '../engine-context'
import { EngineError } from '../errors'
import { assertTopicsStartable } from '../preparing/start-checks'
import { dispatchAll } from '../runner/dispatch-all'
import { interruptFetch } from '../fetcher/fetch-state'
import type { MirrorDefinition } from '../types'
import { planOrRefuse } from './preconditions'
import { startTopics } from './topic-commands'
import { writeDefinition } from './mirror-definition'
import { withTimeout } from '@/server/util/with-timeout'

/** How long a deletion waits to learn whether the source still holds the mirror's fences. */
const FENCE_READ_TIMEOUT_MS = 5_000

export interface CreateMirrorInput {
  name: string
  sourceCluster: string
  destinationCluster: string
  topics?: string[]
  topicsInclude?: string[]
  topicsExclude?: string[]
  config?: Partial<ResolvedMirrorConfig>
}

/** A new mirror, validated: what `applyCreateMirror` creates, and what a dry run answers. */
export interface CreateMirrorPlan {
  /** The definition to write, without its creation time (taken when applied). */
  readonly definition: Omit<MirrorDefinition, 'createdAt'>
  /** The named topics, started at creation. */
  readonly topics: readonly string[]
  /** Source topics topics.include/exclude match now, besides the named: the first sync starts them. */
  readonly discovered: readonly string[]
}

/**
 * Every check of a create, in one place (the real create and its dry run both plan with it): names, no
 * mirror of that name yet, two different clusters, the config, the source reachable with the named topics,
 * and those topics startable on the destination (no other mirror, same topic id, no mirror loop). Changes nothing.
 */
export async function planCreateMirror(ctx: ClusterAccess & PartitionStore, input: CreateMirrorInput): Promise<CreateMirrorPlan> {
  assertName(input.name, 'mirror')
  if (ctx.state.has(input.name)) throw new EngineError('CONFLICT', `mirror ${input.name} already exists`)
  if (input.sourceCluster === input.destinationCluster) throw new EngineError('VALIDATION_FAILED', 'a mirror needs two different clusters')
  const { source } = ctx.clusters.cluster(input.sourceCluster, input.destinationCluster)
  const config = resolveConfig(input)
  const topics = [...new Set(input.topics ?? [])]
  for (const topic of topics) assertName(topic, 'topic')
  const sourceClusterId = await ctx.clusters.reachSource(() => source.clusterId())
  const sourceTopics = await ctx.clusters.reachSource(() => source.describeTopics())
  const missing = topics.filter((topic) => !sourceTopics.some((described) => described.name === topic))
  if (missing.length > 0) throw new EngineError('NOT_FOUND', `topics not found on ${input.sourceCluster}: ${missing.join(', ')}`)
  const named = new Set(topics)
  await assertTopicsStartable(ctx, input.name, input.destinationCluster, sourceTopics.filter((topic) => named.has(topic.name)), source)
  const discovered = sourceTopics
    .map((topic) => topic.name)
    .filter((topic) => !named.has(topic) && matchesFilters(topic, config['topics.include'], config['topics.exclude']))
  return {
    definition: { name: input.name, sourceCluster: input.sourceCluster, destinationCluster: input.destinationCluster, sourceClusterId, topics: [], config },
    topics,
    discovered,
  }
}

/** Writes the planned mirror's definition, holds it, and starts its named topics; the first sync discovers the rest. */
export async function applyCreateMirror(
  ctx: ClusterAccess & EngineClock & EngineLog & OperationsAccess & PartitionDispatch & PartitionStore,
  plan: CreateMirrorPlan,
  createdOn?: string,
): Promise<MirrorDefinition> {
  // A second create of the same name may have been applied while this one was planned.
  if (ctx.state.has(plan.definition.name)) throw new EngineError('CONFLICT', `mirror ${plan.definition.name} already exists`)
  const definition: MirrorDefinition = { ...plan.definition, createdAt: ctx.now(), ...(createdOn === undefined ? {} : { createdOn }) }
  await ctx.clusters.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: definition.name }, value: definition }])
  const mirror = ctx.state.add(definition)
  ctx.state.emit({ type: 'mirror', mirror: definition.name, change: 'created' })
  if (plan.topics.length > 0) await startTopics(ctx, definition.name, { topics: [...plan.topics] })
  // The first sync discovers topics matching topics.include.
  mirror.nextSyncAt = ctx.now()
  return definition
}

/** Plans the create, then applies it. */
export async function createMirror(
  ctx: ClusterAccess & EngineClock & EngineLog & OperationsAccess & PartitionDispatch & PartitionStore,
  input: CreateMirrorInput,
  createdOn?: string,
): Promise<MirrorDefinition> {
  return applyCreateMirror(ctx, await planCreateMirror(ctx, input), createdOn)
}

export async function deleteMirror(ctx: ClusterAccess & EngineLog & FetchSettings & LagArchiveAccess & LeadershipAccess & PartitionStore, name: string): Promise<void> {
  const mirror = ctx.state.require(name)
  // A mirror without partitions has nothing to stop and may go.
  if (mirror.partitions.size > 0) planOrRefuse('delete', [...mirror.partitions.values()], { named: true, mirror: name })
  await refuseIfFencing(ctx, name, mirror.definition.sourceCluster)
  await ctx.clusters.stateStore(mirror.definition.destinationCluster).write([
    ...[...mirror.partitions.values()].flatMap((runtime) => [
      { key: { kind: 'partition' as const, mirror: name, topicId: runtime.topicId, partition: runtime.partition }, value: null },
      // Earlier versions also wrote a position record at STOPPING: its tombstone lets compaction drop it.
      { key: { kind: 'position' as const, mirror: name, topicId: runtime.topicId, partition: runtime.partition }, value: null },
    ]),
    { key: { kind: 'mirror', mirror: name }, value: null },
  ])
  ctx.state.delete(name)
  ctx.throttles.forget(name)
  ctx.leadership.forget(name)
  ctx.state.emit({ type: 'mirror', mirror: name, change: 'deleted' })
  // Its lag history and recovery points go with it: a new mirror of the same name must not inherit its compliance.
  // The mirror is gone already: a file that cannot be removed is logged, not a failed delete.
  await ctx.lagArchive?.remove(name).catch((error: unknown) => ctx.log('lag archive removal failed', { mirror: name, error: error instanceof Error ? error.message : String(error) }))
}

/**
 * A mirror whose switchover fence is still on its source cannot be deleted: only it may lift that fence, so
 * deleting it would leave those topics refusing clients for good. The operator unfences first (POST
 * /mirrors/{m}/unfence, audited) or fails back. A source that cannot be read does not block the deletion of a
 * mirror whose source is gone; a fence left so is lifted by a failback's failover into that cluster
 * (lib/failover fencesLiftedByFailover lifts the fences of mirrors that no longer exist).
 */
async function refuseIfFencing(ctx: ClusterAccess, name: string, sourceCluster: string): Promise<void> {
  const source = ctx.clusters.cluster(sourceCluster).source
  if (source.writeFences === undefined) return
  const fences = await withTimeout(source.writeFences(), FENCE_READ_TIMEOUT_MS).catch(() => [])
  const topics = [...new Set(fences.filter((fence) => fence.mirror === name).map((fence) => fence.topic))].sort()
  if (topics.length === 0) return
  throw new EngineError('INVALID_MIRROR_STATE', `mirror ${name} still fences writes to ${topics.join(', ')} on ${sourceCluster}: unfence them first (POST /api/v1/mirrors/${name}/unfence) or fail back`, {
    details: { fencedTopics: topics, sourceCluster },
  })
}

export async function updateMirrorConfig(ctx: ClusterAccess & EngineClock & PartitionStore, name: string, patch: Partial<ResolvedMirrorConfig>): Promise<MirrorDefinition> {
  const mirror = ctx.state.require(name)
  const config = resolveConfig({ config: { ...mirror.definition.config, ...patch } })
  const definition = { ...mirror.definition, config }
  await writeDefinition(ctx, mirror, definition)
  mirror.nextSyncAt = ctx.now()
  // A held fetch was asked under the old settings and would answer under them: a new throttle would let
  // the next batch through uncounted. The next round asks again with the new ones.
  interruptFetch(mirror.fetchInterrupt)
  return definition
}

/**
 * A client changed a destination topic's configs: the ones the state machine watches apply now, not at
 * the next sync (KIP-1279.md §2.3): `remote.storage.enable` fails the topic's mirror partitions for good
 * (§11 #36), `mirror.support.unclean.leader.election` is what the next divergence is judged by.
 */
export async function destinationTopicConfigsChanged(ctx: ClusterAccess & PartitionDispatch & PartitionStore, clusterName: string, topic: string): Promise<void> {
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
