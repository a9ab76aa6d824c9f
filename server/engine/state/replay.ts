import 'server-only'
import type { MirrorPartition } from '@/lib/mirror/transition'
import { isMirrorPartitionState } from '@/lib/mirror/states'
import type { EngineClusters } from '../cluster-access'
import type { MirrorDefinition } from '../types'
import type { EngineState } from './engine-state'
import { newPartitionRuntime } from './partition-runtime'
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
      const stored = value as MirrorPartition & { topic: string; partition: number }
      if (!isMirrorPartitionState(stored.state)) continue
      const { topic, partition, ...partitionValue } = stored
      const runtime = newPartitionRuntime(mirror.definition.name, topic, key.topicId, partition, partitionValue)
      mirror.partitions.set(runtime, runtime)
    }
  }
}
