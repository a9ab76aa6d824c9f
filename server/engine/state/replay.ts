import 'server-only'
import type { EngineClusters } from '../cluster-access'
import type { MirrorDefinition } from '../types'
import type { EngineState } from './engine-state'
import { restoredPartition } from './state-fencing'
import { MirrorStateStore } from './state-store'

/**
 * Rebuilds the engine's mirrors from every cluster's `__mirror_state`: the definitions a cluster holds as
 * destination, then their partitions as last persisted. Positions and tombstoned keys are the store's
 * business; nothing here changes a cluster.
 */
export async function replayMirrorState(clusters: EngineClusters, state: EngineState): Promise<void> {
  for (const clusterName of clusters.names()) {
    const cluster = clusters.find(clusterName)
    if (!cluster) continue
    const records = await new MirrorStateStore(cluster.host).replay()
    for (const { key, value } of records.values()) {
      if (key.kind !== 'mirror') continue
      const definition = value as MirrorDefinition
      if (definition.destinationCluster !== clusterName) continue
      state.add(definition)
    }
    for (const { key, value } of records.values()) {
      if (key.kind !== 'partition') continue
      const mirror = state.get(key.mirror)
      if (!mirror) continue
      const stored = restoredPartition(value)
      if (!stored) continue
      // The epoch this engine last wrote under: its first write after a restart is not fenced by its own.
      const runtime = state.newPartition(
        { mirror: mirror.definition.name, topic: stored.topic, topicId: key.topicId, partition: stored.partition },
        stored.value,
        { destinationLeaderEpoch: Math.max(0, stored.writerLeaderEpoch), failureCode: stored.failureCode },
      )
      mirror.partitions.set(runtime, runtime)
    }
  }
}
