import type { MirrorSummary } from '@/lib/api/mirrors'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { STATE_STYLE, stateExplanation, STATES_BY_SEVERITY, TONE_STYLE } from '@/lib/ui/state-style'
import { Panel, Skeleton } from '@/components/ui/panel'
import { formatInteger } from '@/lib/ui/format'

/** States always listed, even at zero, so "0 FAILED" is said out loud; the others only when present. */
const ALWAYS_SHOWN: ReadonlySet<MirrorPartitionState> = new Set(['FAILED', 'PAUSED', 'STOPPED', 'MIRRORING'])

export function countPartitionsByState(mirrors: readonly Pick<MirrorSummary, 'partitionsByState'>[]): Record<MirrorPartitionState, number> {
  const counts = Object.fromEntries(STATES_BY_SEVERITY.map((state) => [state, 0])) as Record<MirrorPartitionState, number>
  for (const mirror of mirrors) {
    for (const state of STATES_BY_SEVERITY) counts[state] += mirror.partitionsByState[state] ?? 0
  }
  return counts
}

/** Partitions per state over every mirror: a bar of the whole and a count per state, worst first. */
export function StateCounts({ mirrors }: { mirrors: readonly MirrorSummary[] | undefined }) {
  if (mirrors === undefined) {
    return (
      <Panel id="state-counts" title="Partitions by state">
        <Skeleton className="h-3 w-full" />
        <div className="mt-3 flex gap-2">
          <Skeleton className="h-6 w-24" />
          <Skeleton className="h-6 w-20" />
          <Skeleton className="h-6 w-24" />
        </div>
      </Panel>
    )
  }
  const counts = countPartitionsByState(mirrors)
  const total = STATES_BY_SEVERITY.reduce((sum, state) => sum + counts[state], 0)
  const shown = STATES_BY_SEVERITY.filter((state) => counts[state] > 0 || ALWAYS_SHOWN.has(state))
  return (
    <Panel id="state-counts" title={`Partitions by state (${formatInteger(total)})`}>
      {total > 0 && (
        <div className="mb-3 flex h-3 w-full overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800" aria-hidden>
          {STATES_BY_SEVERITY.filter((state) => counts[state] > 0).map((state) => (
            <div key={state} className={TONE_STYLE[STATE_STYLE[state].tone].solid} style={{ width: `${(counts[state] / total) * 100}%` }} title={`${STATE_STYLE[state].short} ${counts[state]}`} />
          ))}
        </div>
      )}
      <ul aria-label="Partitions per state" className="flex flex-wrap gap-2">
        {shown.map((state) => {
          const style = STATE_STYLE[state]
          const zero = counts[state] === 0
          return (
            <li
              key={state}
              data-state={state}
              title={stateExplanation(state)}
              className={`inline-flex items-center gap-1.5 rounded-md px-2.5 py-1 text-sm ring-1 ring-inset ${zero ? 'text-slate-500 ring-slate-200 dark:text-slate-400 dark:ring-slate-700' : TONE_STYLE[style.tone].badge}`}
            >
              <span aria-hidden className="font-mono">
                {style.icon}
              </span>
              <span className="font-medium">{style.short}</span>
              <span className="font-semibold tabular-nums">{formatInteger(counts[state])}</span>
            </li>
          )
        })}
      </ul>
    </Panel>
  )
}
