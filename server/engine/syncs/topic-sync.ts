import 'server-only'
import { needsProactiveEpochBump } from '@/lib/mirror/guards'
import { createMirrorPartition } from '@/lib/mirror/transition'
import type { MirrorHost, SourceCluster, TopicDescription } from '@/server/cluster/ports'
import { forEachConcurrently, yieldToEventLoop } from '@/server/util/cooperative'
import { startTopics } from '../commands/topic-commands'
import { syncedTopicConfigs } from '../config/mirror-config'
import { matchesAny, matchesFilters } from '../config/topic-patterns'
import { PARTITION_CONCURRENCY, type ClusterAccess, type EngineClock, type EngineLog, type OperationsAccess, type PartitionDispatch, type PartitionStore } from '../engine-context'
import { dispatchAll } from '../runner/dispatch-all'
import { countSyncError, type EngineMirror } from '../state/engine-mirror'
import type { PartitionRuntime } from '../types'
import { syncGroupOffsets } from './group-offset-sync'

/**
 * The periodic sync of one mirror (every mirror.metadata.refresh.interval.ms): the source's cluster id and
 * leaders, topics discovered by topics.include, topics deleted at the source or newly excluded, partition
 * counts, topic configs, tiered storage, proactive epoch bumps, then committed group offsets.
 */
export async function syncMirror(ctx: ClusterAccess & EngineClock & EngineLog & OperationsAccess & PartitionDispatch & PartitionStore, mirror: EngineMirror): Promise<void> {
  const { definition } = mirror
  mirror.nextSyncAt = ctx.now() + definition.config['mirror.metadata.refresh.interval.ms']
  let source: SourceCluster, host: MirrorHost
  try {
    ;({ source, host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster))
  } catch {
    return
  }
  let sourceTopics: TopicDescription[]
  try {
    const clusterId = await source.clusterId()
    if (clusterId !== definition.sourceClusterId) {
      await dispatchAll(ctx, mirror, [...mirror.partitions.values()], { type: 'sourceClusterIdChanged', expectedClusterId: definition.sourceClusterId, actualClusterId: clusterId })
      return
    }
    sourceTopics = await source.describeTopics()
  } catch (error) {
    ctx.log('sync: source unreachable', { mirror: definition.name, error: String(error) })
    countSyncError(mirror, 'sourceUnreachable')
    return
  }
  const byName = new Map(sourceTopics.map((topic) => [topic.name, topic]))
  for (const topic of sourceTopics) for (const partition of topic.partitions) mirror.sourceLeaders.set({ topic: topic.name, partition: partition.partition }, partition.leader)

  // New topics matching the include patterns start mirroring by themselves.
  const discovered = sourceTopics
    .map((topic) => topic.name)
    .filter((name) => !definition.topics.includes(name) && matchesFilters(name, definition.config['topics.include'], definition.config['topics.exclude']))
  if (discovered.length > 0) {
    await startTopics(ctx, definition.name, { topics: discovered }).catch((error: unknown) => {
      ctx.log('sync: start of discovered topics failed', { error: String(error) })
      countSyncError(mirror, 'topicStart')
    })
  }

  for (const topic of definition.topics) {
    // A topic at a time with a turn of the event loop between, as the fetch round does: a sync of 100,000
    // partitions held the loop for hundreds of milliseconds (the flap bench's longest stall after the fetch).
    await yieldToEventLoop()
    const active = mirror.partitions.ofTopic(topic).filter((runtime) => runtime.value.state !== 'STOPPED' && runtime.value.state !== 'STOPPING')
    const sourceTopic = byName.get(topic)
    if (!sourceTopic) {
      const misses = (mirror.missingTopicSyncs.get(topic) ?? 0) + 1
      mirror.missingTopicSyncs.set(topic, misses)
      if (misses >= 2) await dispatchAll(ctx, mirror, active, { type: 'sourceTopicDeleted' })
      continue
    }
    mirror.missingTopicSyncs.delete(topic)
    if (active.length === 0) continue
    // A mirrored topic that starts matching topics.exclude is stopped.
    if (matchesAny(topic, definition.config['topics.exclude'])) {
      await dispatchAll(ctx, mirror, active, { type: 'stopRequested' })
      continue
    }
    const syncable = active.some((runtime) => runtime.value.state !== 'PAUSED' && runtime.value.state !== 'PAUSING')
    if (!syncable) continue
    await syncPartitionCount(ctx, mirror, sourceTopic)
    // One topic's configs that cannot be copied do not stop the other topics' sync (KIP-1279: TopicConfigSyncError).
    try {
      await syncConfigs(mirror, host, sourceTopic)
    } catch (error) {
      ctx.log('sync: topic configs not copied', { mirror: definition.name, topic, error: String(error) })
      countSyncError(mirror, 'topicConfigSync')
    }
    const [destinationTopic] = await host.describeTopics([topic])
    if (destinationTopic?.configs['remote.storage.enable'] === 'true') {
      await dispatchAll(ctx, mirror, active, { type: 'tieredStorageDetected' })
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
      ctx.runner.withLock(runtime, () => ctx.runner.dispatch(definition, runtime, { type: 'epochBumpThresholdReached', observedEpoch, leaderEpoch }, 'periodic epoch check')),
    )
  }
  try {
    await syncGroupOffsets(mirror, source, host)
  } catch (error) {
    ctx.log('sync: group offsets not synced', { mirror: definition.name, error: String(error) })
    countSyncError(mirror, 'groupOffsetSync')
  }
}

/** Partitions added at the source are created on the destination and start. */
async function syncPartitionCount(ctx: ClusterAccess & EngineClock & PartitionDispatch & PartitionStore, mirror: EngineMirror, sourceTopic: TopicDescription): Promise<void> {
  const { definition } = mirror
  const host = ctx.clusters.cluster(definition.destinationCluster).host
  const [destination] = await host.describeTopics([sourceTopic.name])
  if (!destination) return
  const known = mirror.partitions.ofTopic(sourceTopic.name).length
  if (sourceTopic.partitions.length <= known) return
  if (destination.partitions.length < sourceTopic.partitions.length) await host.createMirrorPartitions(sourceTopic.name, sourceTopic.partitions.length)
  const added: PartitionRuntime[] = []
  for (let partition = 0; partition < sourceTopic.partitions.length; partition++) {
    if (mirror.partitions.has({ topic: sourceTopic.name, partition })) continue
    const runtime = ctx.state.newPartition({ mirror: definition.name, topic: sourceTopic.name, topicId: destination.topicId, partition }, createMirrorPartition(ctx.now()))
    mirror.partitions.set(runtime, runtime)
    added.push(runtime)
  }
  await dispatchAll(ctx, mirror, added, { type: 'startRequested' })
}

async function syncConfigs(mirror: EngineMirror, host: MirrorHost, sourceTopic: TopicDescription): Promise<void> {
  const wanted = syncedTopicConfigs(sourceTopic.configs, mirror.definition.config)
  const [destination] = await host.describeTopics([sourceTopic.name])
  if (!destination) return
  const changed = Object.entries(wanted).some(([key, value]) => destination.configs[key] !== value)
  if (changed) await host.alterTopicConfigs(sourceTopic.name, wanted)
}
