import 'server-only'
import type { SourceCluster } from '@/server/cluster/ports'
import type { MirrorDefinition } from '../types'

/**
 * #35 (KIP-1279.md §7.3 `source.cluster.id`): the source's cluster id, checked before every fetch round, so
 * that the address of a mirror's source answering as another cluster (a rebuilt cluster, a DNS or listener
 * change) never gets a byte of that cluster's data appended: the periodic sync alone would leave up to a
 * refresh interval of fetches. One cheap call a round; a source that cannot answer is left to the fetch,
 * which reports it as unreachable.
 */
export async function changedSourceClusterId(mirror: MirrorDefinition, source: SourceCluster): Promise<{ expectedClusterId: string; actualClusterId: string } | null> {
  let actualClusterId: string
  try {
    actualClusterId = await source.clusterId()
  } catch {
    return null
  }
  return actualClusterId === mirror.sourceClusterId ? null : { expectedClusterId: mirror.sourceClusterId, actualClusterId }
}
