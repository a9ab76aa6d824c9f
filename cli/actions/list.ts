import { clusterEndpoints, mirrorEndpoints } from '@/lib/api/endpoints'
import { worstState, STATE_STYLE } from '@/lib/ui/state-style'
import { option } from '../flags'
import { renderTable } from '../format'
import type { Action } from '../action'

/**
 * `--list`: every mirror with the KIP's columns (MIRROR, TOPICS, SOURCE-CLUSTER-ID, SOURCE-BOOTSTRAP-SERVER), as
 * the Admin client's ClusterMirrorListing gives them; the source's id and bootstrap servers come from its
 * cluster (an embedded cluster has no bootstrap servers: "-").
 */

export interface ListedMirror {
  mirror: string
  topicCount: number
  topics: string[]
  sourceCluster: string
  sourceClusterId: string | null
  sourceBootstrapServers: string[] | null
  destinationCluster: string
  partitionsByState: Record<string, number>
}

export const listAction: Action = {
  name: 'list',
  flag: '--list',
  origin: 'kip',
  summary: 'List mirrors: MIRROR, TOPICS, SOURCE-CLUSTER-ID, SOURCE-BOOTSTRAP-SERVER',
  usage: '--list [--source CLUSTER] [--json]',
  examples: ['mirrorboard --list', 'mirrorboard --list --source us-east --json'],
  options: [option('--source <cluster>', 'only mirrors from this source cluster')],
  details: 'TOPICS counts the topics the mirror holds. --json adds the topic names, both clusters and the partitions per state.',
  async run({ api, out, flags, style }) {
    const sourceCluster = flags.string('source')
    const [{ mirrors }, { clusters }] = await Promise.all([
      api.call(mirrorEndpoints.listMirrors, { query: { sourceCluster } }),
      api.call(clusterEndpoints.listClusters),
    ])
    const byName = new Map(clusters.map((cluster) => [cluster.name, cluster]))
    const listed: ListedMirror[] = mirrors
      .map((mirror) => {
        const source = byName.get(mirror.sourceCluster)
        return {
          mirror: mirror.name,
          topicCount: mirror.topics.length,
          topics: [...mirror.topics],
          sourceCluster: mirror.sourceCluster,
          sourceClusterId: source?.clusterId || null,
          sourceBootstrapServers: source?.bootstrapServers ?? null,
          destinationCluster: mirror.destinationCluster,
          partitionsByState: Object.fromEntries(Object.entries(mirror.partitionsByState).filter((entry): entry is [string, number] => entry[1] !== undefined)),
        }
      })
      .sort((a, b) => (a.mirror < b.mirror ? -1 : a.mirror > b.mirror ? 1 : 0))
    out.result(listed, () =>
      renderTable(
        listed,
        [
          { header: 'MIRROR', value: (row) => row.mirror, tone: (row) => toneOf(row.partitionsByState) },
          { header: 'TOPICS', value: (row) => String(row.topicCount) },
          { header: 'SOURCE-CLUSTER-ID', value: (row) => row.sourceClusterId ?? '-' },
          { header: 'SOURCE-BOOTSTRAP-SERVER', value: (row) => (row.sourceBootstrapServers ?? []).join(',') || '-' },
        ],
        style,
      ),
    )
  },
}

/** The mirror's name takes the colour of its worst partition, as its edge on the overview does. */
function toneOf(counts: Record<string, number>) {
  const worst = worstState(counts)
  return worst === null ? null : STATE_STYLE[worst].tone
}
