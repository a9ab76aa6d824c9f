import 'server-only'
import { type ClusterAccess, type PartitionStore } from '../engine-context'
import type { EngineMirror } from '../state/engine-mirror'
import type { MirrorDefinition } from '../types'

/** Adds start patterns to topics.include (KIP-1279.md §6.3: "Patterns saved"), each once. */
export async function keepStartPatterns(ctx: ClusterAccess & PartitionStore, mirror: EngineMirror, patterns: string[]): Promise<void> {
  const include = mirror.definition.config['topics.include']
  const added = [...new Set(patterns)].filter((pattern) => !include.includes(pattern))
  if (added.length === 0) return
  await writeDefinition(ctx, mirror, { ...mirror.definition, config: { ...mirror.definition.config, 'topics.include': [...include, ...added] } })
}

/** A changed definition: durable first, then held and announced. */
export async function writeDefinition(ctx: ClusterAccess & PartitionStore, mirror: EngineMirror, definition: MirrorDefinition): Promise<void> {
  await ctx.clusters.stateStore(definition.destinationCluster).write([{ key: { kind: 'mirror', mirror: definition.name }, value: definition }])
  mirror.definition = definition
  ctx.state.emit({ type: 'mirror', mirror: definition.name, change: 'updated' })
}
