import 'server-only'
import { buildTopology, topologyShapeKey, withLiveValues, type Topology, type TopologyClusterInput, type TopologyMirrorInput } from '@/lib/graph/topology'

/** A layout and the shape it was made for, handed to the overview so the browser need not lay it out again. */
export interface TopologyLayout {
  readonly shape: string
  readonly topology: Topology
}

const KEPT_SHAPES = 8
const layouts = new Map<string, Topology>()

/**
 * The overview's layout, computed once per shape (which clusters exist, which mirror joins which): every
 * operator opening the overview gets it without paying dagre again, with today's states and lag laid over it.
 */
export function topologyLayoutFor(clusters: readonly TopologyClusterInput[], mirrors: readonly TopologyMirrorInput[]): TopologyLayout {
  const shape = topologyShapeKey(clusters, mirrors)
  let layout = layouts.get(shape)
  if (layout === undefined) {
    layout = buildTopology(clusters, mirrors)
    layouts.set(shape, layout)
    for (const oldest of layouts.keys()) {
      if (layouts.size <= KEPT_SHAPES) break
      layouts.delete(oldest)
    }
  } else {
    // Most recently used last, so the oldest shape is the one dropped.
    layouts.delete(shape)
    layouts.set(shape, layout)
  }
  return { shape, topology: withLiveValues(layout, clusters, mirrors) }
}
