import type { TopologyEdge } from '@/lib/graph/topology'
import { formatCount, formatDuration, formatOffset } from '@/lib/ui/format'

/** What a mirror's label says of its lag: shown compactly, exact on hover. */
export function edgeLagText(edge: Pick<TopologyEdge, 'totalOffsetLag' | 'maxTimeLagMs' | 'worstState' | 'partitions'>): { shown: string; exact: string } {
  if (edge.partitions === 0) return { shown: 'no partitions yet', exact: 'No partitions yet' }
  // Null while a mirroring partition's source has not answered its first fetch: not "lag 0", which would read caught up.
  if (edge.totalOffsetLag === null || edge.maxTimeLagMs === null) return { shown: 'lag not known yet', exact: 'Lag not known yet: a mirroring partition has had no fetch answered' }
  const offsets = edge.totalOffsetLag
  const time = edge.maxTimeLagMs
  const noun = offsets === 1 ? 'record' : 'records'
  return {
    shown: `lag ${formatCount(offsets)} · ${formatDuration(time)}`,
    exact: `Total offset lag ${formatOffset(offsets)} ${noun} over mirroring partitions; max time lag ${formatDuration(time)}`,
  }
}
