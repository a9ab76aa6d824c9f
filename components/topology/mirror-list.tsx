import Link from 'next/link'
import type { TopologyEdge } from '@/lib/graph/topology'
import { StateBadge } from '@/components/ui/state-badge'
import { StatusBadge } from '@/components/ui/status-badge'
import { RPO_STATUS_STYLE } from '@/lib/ui/status-style'
import { mirrorLagText } from '@/lib/ui/lag-text'

/** The graph as text: one line per mirror, for screen readers, small screens and anyone who prefers a list. */
export function MirrorList({ edges }: { edges: readonly TopologyEdge[] }) {
  if (edges.length === 0) return null
  return (
    <ul aria-label="Mirrors" className="divide-y divide-slate-100 dark:divide-slate-800">
      {edges.map((edge) => {
        const lag = mirrorLagText(edge)
        return (
          <li key={edge.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2 text-sm">
            <Link prefetch={false}
              href={`/mirrors/${encodeURIComponent(edge.mirror)}`}
              className="min-w-0 truncate font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300"
            >
              {edge.mirror}
            </Link>
            <span className="min-w-0 truncate text-slate-600 dark:text-slate-300">
              {edge.source} <span aria-label="to">→</span> {edge.target}
              {edge.paired && <span className="ml-1 text-xs text-slate-500 dark:text-slate-400">(reverse mirror exists)</span>}
            </span>
            <span className="ml-auto flex items-center gap-2">
              {edge.worstState === null ? <span className="text-xs text-slate-500 dark:text-slate-400">no partitions</span> : <StateBadge state={edge.worstState} size="sm" />}
              {edge.rpoStatus !== null && <StatusBadge look={RPO_STATUS_STYLE[edge.rpoStatus]} data-rpo-status={edge.rpoStatus} />}
              <span className="text-xs whitespace-nowrap text-slate-600 tabular-nums dark:text-slate-300" title={lag.exact}>
                {lag.shown}
              </span>
            </span>
          </li>
        )
      })}
    </ul>
  )
}
