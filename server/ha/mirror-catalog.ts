import 'server-only'
import type { AssignableMirror } from '@/lib/ha/mirror-assignment'
import { mirrorKey } from '@/lib/ha/member-metadata'
import { decodeKey } from '@/lib/mirror/mirror-state-records'
import type { MirrorHost } from '@/server/cluster/ports'

/** What the catalog needs of the clusters: which are shared between instances, and their hosts. */
export interface CatalogClusters {
  names(): string[]
  /** Kafka clusters are shared: every instance reaches the same one. Embedded ones live in one instance's data directory. */
  isShared(name: string): boolean
  host(name: string): MirrorHost
}

/**
 * The mirrors the group shares out, as the leader reads them for an assignment: every mirror between two shared
 * (Kafka) clusters, from its destination's state topic, with its partition count. A cluster that cannot be read
 * leaves its mirrors out of this assignment (they keep whoever runs them: the sticky step only drops mirrors the
 * catalog does not hold, so they are assigned again at the next rebalance once the cluster answers).
 */
export async function readMirrorCatalog(clusters: CatalogClusters, log: (message: string, fields: Record<string, unknown>) => void): Promise<AssignableMirror[]> {
  const mirrors: AssignableMirror[] = []
  for (const name of clusters.names()) {
    if (!clusters.isShared(name)) continue
    let records: Array<{ key: string; value: string | null }>
    try {
      records = await clusters.host(name).readMirrorState()
    } catch (error) {
      log('the mirror catalog could not read a cluster', { cluster: name, error: String(error) })
      continue
    }
    const latest = new Map<string, string | null>()
    for (const record of records) latest.set(record.key, record.value)
    const partitions = new Map<string, number>()
    const definitions = new Map<string, { sourceCluster: string; destinationCluster: string; createdOn?: unknown }>()
    for (const [text, value] of latest) {
      const key = decodeKey(text)
      if (!key || value === null) continue
      if (key.kind === 'partition') partitions.set(key.mirror, (partitions.get(key.mirror) ?? 0) + 1)
      if (key.kind === 'mirror') {
        try {
          definitions.set(key.mirror, JSON.parse(value) as { sourceCluster: string; destinationCluster: string; createdOn?: unknown })
        } catch {
          continue
        }
      }
    }
    for (const [mirror, definition] of definitions) {
      if (definition.destinationCluster !== name || !clusters.isShared(definition.sourceCluster)) continue
      mirrors.push({
        name: mirrorKey({ name: mirror, destinationCluster: name }),
        partitions: partitions.get(mirror) ?? 1,
        ...(typeof definition.createdOn === 'string' ? { createdOn: definition.createdOn } : {}),
      })
    }
  }
  return mirrors
}
