import { StatusBadge } from '@/components/ui/status-badge'
import { formatCount } from '@/lib/ui/format'
import type { LagTrend } from '@/lib/ui/lag-series'
import { LAG_TREND_STYLE } from '@/lib/ui/status-style'

/** Which way the total offset lag is heading, by glyph and word (never by colour alone). */
export function LagTrendBadge({ trend }: { trend: LagTrend }) {
  const look = LAG_TREND_STYLE[trend.direction]
  const rate = trend.direction === 'steady' ? '' : ` (${trend.perMinute > 0 ? '+' : '−'}${formatCount(Math.round(Math.abs(trend.perMinute)))}/min)`
  return (
    <StatusBadge look={look} data-trend={trend.direction}>
      lag {look.label}
      {rate}
    </StatusBadge>
  )
}
