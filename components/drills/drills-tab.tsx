'use client'

import Link from 'next/link'
import { useState } from 'react'
import { useCancelDrill, useMirrorDrills, useStartDrill } from '@/components/data/use-drills'
import { useCanOperate } from '@/components/data/session-context'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { HistoryTable, StartedCells } from '@/components/ui/history-table'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'
import type { Drill } from '@/lib/api/drills'
import type { Mirror } from '@/lib/api/mirrors'
import { checksSentence } from '@/lib/ui/drill-view'
import { counted, formatCount, formatDuration } from '@/lib/ui/format'
import { DRILL_STATUS_STYLE } from '@/lib/ui/status-style'
import { DrillSteps } from './drill-steps'
import { requesterName } from '@/lib/ui/requester-name'

const ALL = '*'

/**
 * The mirror page's Drills tab: run a drill (operators), follow the one running, and the history with each
 * drill's outcome, RTO, RPO and checks. A drill never touches the mirror: it fails over a copy.
 */
export function DrillsTab({ mirror }: { mirror: Mirror }) {
  const drills = useMirrorDrills(mirror.name)
  const running = drills.data?.drills.find((drill) => drill.status === 'running') ?? null
  return (
    <div className="flex flex-col gap-5">
      <Panel title="Rehearse the failover" id="drill-run">
        <div className="flex flex-col gap-3">
          <p className="max-w-3xl text-sm text-slate-700 dark:text-slate-300">
            A drill copies {mirror.destinationCluster}&apos;s mirror partitions as they are now into a sandbox cluster of its own, runs the real failover there (ABORT markers,
            leader-epoch bump, MIRROR_PID_RESET), checks the copy and measures RTO and RPO. The mirror keeps mirroring; nothing reaches {mirror.sourceCluster}; the sandbox is
            removed at the end.
          </p>
          <RunDrill mirror={mirror} disabled={running !== null} />
        </div>
      </Panel>
      {running !== null && <RunningDrill drill={running} />}
      <Panel title="Drills of this mirror" id="drill-history">
        {drills.isPending ? (
          <Skeleton className="h-24 w-full" />
        ) : drills.isError ? (
          <ErrorPanel error={drills.error} title="Could not load the drills" onRetry={() => void drills.refetch()} compact />
        ) : drills.data.drills.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">No drill yet: nobody has rehearsed this mirror&apos;s failover. Run one above; it takes seconds and changes nothing.</p>
        ) : (
          <DrillHistory drills={drills.data.drills} />
        )}
      </Panel>
    </div>
  )
}

function RunDrill({ mirror, disabled }: { mirror: Mirror; disabled: boolean }) {
  const canOperate = useCanOperate({ mirror: mirror.name })
  const start = useStartDrill(mirror.name)
  const [topic, setTopic] = useState(ALL)
  if (!canOperate) return <p className="text-sm text-slate-600 dark:text-slate-400">Operators run drills; you can follow them here.</p>
  return (
    <div className="flex flex-col gap-2">
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault()
          start.mutate(topic === ALL ? undefined : [topic])
        }}
      >
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
          Topics
          <select
            className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100"
            value={topic}
            onChange={(event) => setTopic(event.target.value)}
          >
            <option value={ALL}>All topics ({mirror.topics.length})</option>
            {mirror.topics.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className={buttonClass('primary')} disabled={disabled || start.isPending}>
          {start.isPending ? 'Starting…' : 'Run a drill'}
        </button>
        {disabled && <span className="text-sm text-slate-600 dark:text-slate-400">One drill at a time: one is running.</span>}
      </form>
      {start.isError && <ErrorPanel error={start.error} title="The drill was not started" compact />}
    </div>
  )
}

function RunningDrill({ drill }: { drill: Drill }) {
  const canOperate = useCanOperate({ mirror: drill.mirror })
  const cancel = useCancelDrill(drill.id, drill.mirror)
  return (
    <Panel
      title={
        <span className="flex items-center gap-2">
          Drill in progress <StatusBadge look={DRILL_STATUS_STYLE.running} />
        </span>
      }
      id="drill-running"
      actions={
        <div className="flex gap-2">
          <Link prefetch={false} className={buttonClass('secondary', 'sm')} href={`/drills/${encodeURIComponent(drill.id)}`}>
            Open the drill
          </Link>
          {canOperate && (
            <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              {cancel.isPending ? 'Cancelling…' : 'Cancel'}
            </button>
          )}
        </div>
      }
    >
      <div className="flex flex-col gap-3">
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Started <RelativeTime at={drill.startedAt} /> · sandbox <span className="font-mono">{drill.sandbox.name}</span>
          {drill.rtoMs !== null && (
            <>
              {' '}
              · copy writable after <span className="font-semibold">{formatDuration(drill.rtoMs)}</span>
            </>
          )}
        </p>
        <DrillSteps drill={drill} />
        {cancel.isError && <ErrorPanel error={cancel.error} title="The drill was not cancelled" compact />}
      </div>
    </Panel>
  )
}

function DrillHistory({ drills }: { drills: readonly Drill[] }) {
  return (
    <HistoryTable minWidth="min-w-[44rem]" columns={[{ label: 'Started' }, { label: 'Outcome' }, { label: 'Checks' }, { label: 'RTO', numeric: true }, { label: 'RPO', numeric: true }, { label: 'Partitions', numeric: true }, { label: 'By' }]}>
      {drills.map((drill) => (
        <tr key={drill.id} data-drill={drill.id}>
          <StartedCells href={`/drills/${encodeURIComponent(drill.id)}`} startedAt={drill.startedAt} look={DRILL_STATUS_STYLE[drill.status]} />
          <td className={`py-2 pr-3 ${drill.checks.some((check) => !check.ok) ? 'text-red-800 dark:text-red-300' : ''}`}>{drill.error !== null && drill.checks.length === 0 ? 'did not reach them' : checksSentence(drill.checks)}</td>
          <td className="py-2 pr-3 text-right tabular-nums">{drill.rtoMs === null ? '–' : formatDuration(drill.rtoMs)}</td>
          <td className="py-2 pr-3 text-right tabular-nums" title={drill.rpo.seconds === null ? undefined : `${drill.rpo.seconds} s`}>
            {drill.rpo.records === null ? '–' : counted(drill.rpo.records, 'record')}
          </td>
          <td className="py-2 pr-3 text-right tabular-nums">{formatCount(drill.partitions.length)}</td>
          <td className="py-2 text-xs break-all">{drill.requestedBy == null ? '–' : requesterName(drill.requestedBy)}</td>
        </tr>
      ))}
    </HistoryTable>
  )
}
