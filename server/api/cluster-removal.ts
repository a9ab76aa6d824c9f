import 'server-only'
import type { ClusterRegistry } from '@/server/cluster/registry'

/** What a removal needs to know of mirrors: the engine's definitions (server/engine/engine.ts `listMirrors`). */
interface MirrorDefinitions {
  listMirrors(): ReadonlyArray<{ name: string; sourceCluster: string; destinationCluster: string }>
}

/**
 * DELETE /clusters/{cluster}: a cluster a mirror still reads from or writes to is refused, naming the mirrors,
 * since removing it would fail every partition of them (a STOPPED mirror still lives in the destination's
 * `__mirror_state`, so it counts too: delete the mirror first).
 */
export function removeCluster(runtime: { clusters: ClusterRegistry; engine: MirrorDefinitions }, name: string): Promise<void> {
  return runtime.clusters.remove(name, () => {
    const users = runtime.engine.listMirrors().filter((mirror) => mirror.sourceCluster === name || mirror.destinationCluster === name)
    if (users.length === 0) return null
    const names = users.map((mirror) => mirror.name).join(', ')
    return `cluster ${name} is used by ${users.length === 1 ? 'mirror' : 'mirrors'} ${names}; delete ${users.length === 1 ? 'it' : 'them'} first`
  })
}
