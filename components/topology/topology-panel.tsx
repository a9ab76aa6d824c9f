'use client'

import { useMemo } from 'react'
import type { Cluster } from '@/lib/api/clusters'
import type { MirrorSummary } from '@/lib/api/mirrors'
import { buildTopology, topologyShapeKey, withLiveValues, type Topology } from '@/lib/graph/topology'
import { Panel, Skeleton } from '@/components/ui/panel'
import { MirrorList } from './mirror-list'
import { TopologyGraph } from './topology-graph'

/** A layout the server already made (server/pages/topology-layout.ts), for the shape it was made for. */
export interface InitialTopologyLayout {
  readonly shape: string
  readonly topology: Topology
}

/**
 * Clusters and the mirrors between them: the graph (worst partition state as colour and glyph, lag on each
 * edge) and the same as a list. `clusters`/`mirrors` undefined: still loading, rendered as a skeleton.
 */
export function TopologyPanel({
  clusters,
  mirrors,
  initialLayout = null,
}: {
  clusters: readonly Cluster[] | undefined
  mirrors: readonly MirrorSummary[] | undefined
  initialLayout?: InitialTopologyLayout | null
}) {
  // Laid out again only when clusters or mirrors come or go (the server's layout serves while the shape is
  // the one it was made for); each refresh of lag and states, every second while lag moves, only relabels it.
  const shape = clusters === undefined || mirrors === undefined ? null : topologyShapeKey(clusters, mirrors)
  const layout = useMemo(
    () => {
      if (clusters === undefined || mirrors === undefined) return undefined
      if (initialLayout !== null && initialLayout.shape === shape) return initialLayout.topology
      return buildTopology(clusters, mirrors)
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the layout depends on the shape only
    [shape],
  )
  const topology = useMemo(() => (layout === undefined || clusters === undefined || mirrors === undefined ? undefined : withLiveValues(layout, clusters, mirrors)), [layout, clusters, mirrors])
  return (
    <Panel id="topology" title="Topology" actions={topology && <TopologyLegend />}>
      {topology === undefined ? (
        <Skeleton className="h-72 w-full lg:h-[26rem]" />
      ) : (
        <div className="space-y-3">
          <div role="group" aria-label="Topology graph: clusters and the mirrors between them" className="h-72 w-full overflow-hidden rounded-md bg-slate-50 lg:h-[26rem] dark:bg-slate-950/60">
            <TopologyGraph topology={topology} />
          </div>
          {topology.edges.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-300">
              No mirror yet. An operator creates one with <code className="rounded bg-slate-100 px-1 font-mono text-xs dark:bg-slate-800">POST /api/v1/mirrors</code> naming a source
              cluster, a destination cluster and topics.
            </p>
          ) : (
            <MirrorList edges={topology.edges} />
          )}
        </div>
      )}
    </Panel>
  )
}

function TopologyLegend() {
  return (
    <p className="text-xs text-slate-500 dark:text-slate-400">
      Arrows point from source to destination; colour and glyph show the worst partition state, dashed when not all mirror.
    </p>
  )
}
