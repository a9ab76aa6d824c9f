import type { TopologyEdge } from '@/lib/graph/topology'
import { formatCount, formatDuration, formatOffset } from '@/lib/ui/format'

/** What a mirror's label says of its lag: shown compactly, exact on hover, in words for screen readers. */
export function edgeLagText(edge: Pick<TopologyEdge, 'totalOffsetLag' | 'maxTimeLagMs' | 'worstState' | 'partitions'>): { shown: string; exact: string; spoken: string } {
  if (edge.partitions === 0) return { shown: 'no partitions yet', exact: 'No partitions yet', spoken: 'no partitions yet' }
  const offsets = edge.totalOffsetLag ?? 0
  const time = edge.maxTimeLagMs ?? 0
  const noun = offsets === 1 ? 'record' : 'records'
  return {
    shown: `lag ${formatCount(offsets)} · ${formatDuration(time)}`,
    exact: `Total offset lag ${formatOffset(offsets)} ${noun} over mirroring partitions; max time lag ${formatDuration(time)}`,
    spoken: `total lag ${formatOffset(offsets)} ${noun}, max time lag ${formatDuration(time)}`,
  }
}
