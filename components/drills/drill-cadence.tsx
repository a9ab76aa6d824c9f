import type { MirrorSummary } from '@/lib/api/mirrors'
import { lastDrillText } from '@/lib/drill/cadence'
import { exactTime } from '@/lib/ui/format'

/**
 * "Last successful drill 3 days ago", with the drillIntervalDays objective's verdict (overdue in words and
 * glyph, not only in colour). For the mirror page's header and the overview.
 */
export function DrillCadence({ drills, compact = false }: { drills: MirrorSummary['drills']; compact?: boolean }) {
  if (drills === undefined) return null
  const last = lastDrillText(drills)
  const overdue = drills.overdue === true
  return (
    <span className={`inline-flex flex-wrap items-center gap-x-1.5 ${compact ? 'text-xs' : 'text-sm'} text-slate-700 dark:text-slate-300`} data-testid="drill-cadence">
      <span title={drills.lastSucceededAt === null ? undefined : exactTime(drills.lastSucceededAt)}>
        {compact ? 'Drilled' : 'Last successful drill'} <span className="font-semibold text-slate-900 dark:text-white">{last}</span>
      </span>
      {drills.running !== null && <span className="text-sky-800 dark:text-sky-300">· ◔ a drill is running</span>}
      {drills.intervalDays !== null && (
        <span className={overdue ? 'font-semibold text-amber-900 dark:text-amber-300' : 'text-slate-600 dark:text-slate-400'}>
          · {overdue ? '▲ overdue' : 'on schedule'} (every {drills.intervalDays} {drills.intervalDays === 1 ? 'day' : 'days'})
        </span>
      )}
    </span>
  )
}
