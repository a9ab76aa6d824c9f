import Link from 'next/link'
import { DrillCadence } from '@/components/drills/drill-cadence'
import { Panel } from '@/components/ui/panel'
import type { MirrorSummary } from '@/lib/api/mirrors'

/** What "lately" means in the summary line when a mirror sets no interval of its own. */
const RECENT_DAYS = 7

/** Overdue first, then never drilled, then the longest ago. */
function rank(mirror: MirrorSummary): number {
  const drills = mirror.drills
  if (drills === undefined) return 3
  if (drills.overdue === true) return 0
  if (drills.lastSucceededAt === null) return 1
  return 2
}

/**
 * The overview's "last successful drill" per mirror: which failovers were rehearsed lately and which are overdue
 * against their drillIntervalDays objective. Each links to the mirror's Drills tab.
 */
export function DrillCadencePanel({ mirrors }: { mirrors: readonly MirrorSummary[] | undefined }) {
  if (mirrors === undefined || mirrors.length === 0) return null
  const sorted = [...mirrors].sort((a, b) => rank(a) - rank(b) || (a.drills?.lastSucceededAt ?? 0) - (b.drills?.lastSucceededAt ?? 0) || a.name.localeCompare(b.name))
  const shown = sorted.slice(0, 8)
  const recent = mirrors.filter((mirror) => mirror.drills?.daysSince !== undefined && mirror.drills.daysSince !== null && mirror.drills.daysSince < RECENT_DAYS).length
  const never = mirrors.filter((mirror) => mirror.drills !== undefined && mirror.drills.lastSucceededAt === null).length
  const overdue = mirrors.filter((mirror) => mirror.drills?.overdue === true).length
  return (
    <Panel title="Failover drills" id="drill-cadence">
      <p className="mb-3 text-sm text-slate-700 dark:text-slate-300" data-testid="drill-summary">
        <span className="font-semibold text-slate-900 dark:text-white">{recent}</span> of {mirrors.length} {mirrors.length === 1 ? 'mirror' : 'mirrors'} rehearsed in the last {RECENT_DAYS} days · {never} never
        {overdue > 0 && <span className="font-semibold text-amber-900 dark:text-amber-300"> · ▲ {overdue} overdue</span>}
      </p>
      <ul className="grid gap-x-6 gap-y-2 sm:grid-cols-2">
        {shown.map((mirror) => (
          <li key={mirror.name} className="flex min-w-0 flex-wrap items-baseline gap-x-2" data-mirror={mirror.name}>
            <Link prefetch={false} className="font-mono text-sm font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(mirror.name)}?tab=drills`}>
              {mirror.name}
            </Link>
            <DrillCadence drills={mirror.drills} compact />
          </li>
        ))}
      </ul>
      {sorted.length > shown.length && <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">and {sorted.length - shown.length} more mirrors</p>}
    </Panel>
  )
}
