import 'server-only'
import type { EngineClusters } from '../cluster-access'
import type { MirrorDefinition } from '../types'
import type { EngineMirror } from './engine-mirror'
import type { EngineState } from './engine-state'
import { restoredPartition } from './state-fencing'

/**
 * Reads one mirror from its destination's `__mirror_state` as it is now (another instance may have run it until
 * a moment ago) and adds it to the engine's state: the definition, then each partition as last persisted. The
 * destination's host reads its emulation of the mirror's topics again first, so appends continue from what the
 * previous owner wrote, not from what this instance saw when it last ran the mirror. Undefined when the
 * destination holds no such mirror (deleted meanwhile).
 */
export async function adoptMirror(clusters: EngineClusters, state: EngineState, name: string, destinationCluster: string): Promise<EngineMirror | undefined> {
  const host = clusters.cluster(destinationCluster).host
  // Fenced first (issue #40): the previous owner's later state writes are refused, its open transaction aborted.
  await host.claimMirrorState?.(name)
  const records = await clusters.stateStore(destinationCluster).replay()
  let definition: MirrorDefinition | undefined
  for (const { key, value } of records.values()) {
    if (key.kind === 'mirror' && key.mirror === name) definition = value as MirrorDefinition
  }
  if (!definition || definition.destinationCluster !== destinationCluster) return undefined
  await host.reloadMirrorTopics?.(definition.topics)
  const mirror = state.add(definition)
  for (const { key, value } of records.values()) {
    if (key.kind !== 'partition' || key.mirror !== name) continue
    const stored = restoredPartition(value)
    if (!stored) continue
    const runtime = state.newPartition(
      { mirror: name, topic: stored.topic, topicId: key.topicId, partition: stored.partition },
      stored.value,
      { destinationLeaderEpoch: Math.max(0, stored.writerLeaderEpoch), failureCode: stored.failureCode },
    )
    mirror.partitions.set(runtime, runtime)
  }
  return mirror
}
