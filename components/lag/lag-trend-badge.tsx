import { formatCount } from '@/lib/ui/format'
import type { LagTrend } from '@/lib/ui/lag-series'

const LOOK = {
  growing: { glyph: '▲', text: 'growing', className: 'bg-amber-50 text-amber-900 ring-amber-600/40 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-400/40' },
  shrinking: { glyph: '▼', text: 'shrinking', className: 'bg-emerald-50 text-emerald-800 ring-emerald-600/30 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-400/40' },
  steady: { glyph: '→', text: 'steady', className: 'bg-slate-100 text-slate-700 ring-slate-400/40 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-500/40' },
} as const

/** Which way the total offset lag is heading, by glyph and word (never by colour alone). */
export function LagTrendBadge({ trend }: { trend: LagTrend }) {
  const look = LOOK[trend.direction]
  const rate = trend.direction === 'steady' ? '' : ` (${trend.perMinute > 0 ? '+' : '−'}${formatCount(Math.round(Math.abs(trend.perMinute)))}/min)`
  return (
    <span data-trend={trend.direction} className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${look.className}`}>
      <span aria-hidden>{look.glyph}</span>
      lag {look.text}
      {rate}
    </span>
  )
}
