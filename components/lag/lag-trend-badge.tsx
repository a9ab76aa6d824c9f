import { StatusBadge } from '@/components/ui/status-badge'
import { formatCount } from '@/lib/ui/format'
import type { LagTrend } from '@/lib/ui/lag-series'
import type { LagUnknown } from '@/lib/ui/mirror-snapshot'
import { LAG_TREND_STYLE } from '@/lib/ui/status-style'

/**
 * Which way the total offset lag is heading, by glyph and word (never by colour alone). `lagUnknown`: the
 * figures are lower bounds (a source is silent), so the badge says "lag unknown: source unreachable" instead of
 * reading a direction from figures that stopped moving; a mirror awaiting its first fetch is neutral, not an alarm.
 */
export function LagTrendBadge({ trend, lagUnknown = null, notMirroringBecause = null }: { trend: LagTrend; lagUnknown?: LagUnknown | null; notMirroringBecause?: string | null }) {
  if (notMirroringBecause !== null) {
    return (
      <StatusBadge look={LAG_TREND_STYLE.notMirroring} data-trend="not-mirroring">
        not mirroring
      </StatusBadge>
    )
  }
  if (lagUnknown !== null) {
    return (
      <StatusBadge look={lagUnknown.cause === 'firstFetchPending' ? LAG_TREND_STYLE.pending : LAG_TREND_STYLE.unknown} data-trend="unknown">
        lag unknown: {lagUnknown.because}
      </StatusBadge>
    )
  }
  const look = LAG_TREND_STYLE[trend.direction]
  const rate = trend.direction === 'steady' || trend.direction === 'unknown' ? '' : ` (${trend.perMinute > 0 ? '+' : '−'}${formatCount(Math.round(Math.abs(trend.perMinute)))}/min)`
  return (
    <StatusBadge look={look} data-trend={trend.direction}>
      lag {look.label}
      {rate}
    </StatusBadge>
  )
}
