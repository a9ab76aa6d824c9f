'use client'

import Link from 'next/link'
import { drillReportUrl, useCancelDrill, useDrill } from '@/components/data/use-drills'
import { useCanOperate } from '@/components/data/session-context'
import { Figure } from '@/components/failover/figure'
import { EmulationNotes } from '@/components/mirror/emulation-notes'
import { PartitionLinkCell } from '@/components/partitions/partition-link-cell'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { NotFoundPanel } from '@/components/ui/not-found-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'
import type { Drill } from '@/lib/api/drills'
import { isApiError } from '@/lib/api/errors'
import { checksSentence } from '@/lib/ui/drill-view'
import { counted, exactTime, formatCount, formatDuration, formatOffset } from '@/lib/ui/format'
import { RECORD_LOOK } from '@/lib/ui/log-strip'
import { DRILL_STATUS_STYLE } from '@/lib/ui/status-style'
import { DrillChecks } from './drill-checks'
import { DrillSteps } from './drill-steps'
import { requesterName } from '@/lib/ui/requester-name'

const PARTITIONS_SHOWN = 200

/** The drill page: live progress while it runs, then its checks, figures, markers per partition and the report. */
export function DrillView({ id }: { id: string }) {
  const drill = useDrill(id)
  if (drill.isPending) return <Skeleton className="h-64 w-full" />
  if (drill.isError) {
    if (isApiError(drill.error, 'NOT_FOUND')) return <NotFoundPanel what={`No drill ${id}`} detail="It may have been removed from the history." />
    return <ErrorPanel error={drill.error} title="Could not read the drill" onRetry={() => void drill.refetch()} />
  }
  return <DrillDetails drill={drill.data} />
}

function DrillDetails({ drill }: { drill: Drill }) {
  const canOperate = useCanOperate({ mirror: drill.mirror })
  const cancel = useCancelDrill(drill.id, drill.mirror)
  const lag = drill.productionLag
  const failedChecks = drill.checks.filter((check) => !check.ok).length
  return (
    <div className="space-y-5">
      <header className="space-y-2">
        <p className="text-sm">
          <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(drill.mirror)}?tab=drills`}>
            ← Drills of {drill.mirror}
          </Link>
        </p>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight break-words">Drill of {drill.mirror}</h1>
          <StatusBadge look={DRILL_STATUS_STYLE[drill.status]} size="md" data-testid="drill-status" />
        </div>
        <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
          <div className="flex gap-1">
            <dt>Started</dt>
            <dd title={exactTime(drill.startedAt)}>
              <RelativeTime at={drill.startedAt} />
            </dd>
          </div>
          {drill.finishedAt !== null && (
            <div className="flex gap-1">
              <dt>Took</dt>
              <dd>{formatDuration(drill.finishedAt - drill.startedAt)}</dd>
            </div>
          )}
          <div className="flex gap-1">
            <dt>Topics</dt>
            <dd className="font-mono break-all">{drill.topics.join(', ')}</dd>
          </div>
          <div className="flex gap-1">
            <dt>By</dt>
            <dd title={drill.requestedBy?.actor}>{requesterName(drill.requestedBy)}</dd>
          </div>
          <div className="flex gap-1">
            <dt>Sandbox</dt>
            <dd>
              <span className="font-mono">{drill.sandbox.name}</span> ({drill.sandbox.copiedFrom === 'files' ? 'copied from the files' : "filled from the broker's log"}, {drill.sandbox.removed ? 'removed' : 'present'})
            </dd>
          </div>
        </dl>
        <div className="flex flex-wrap gap-2 pt-1">
          <a href={drillReportUrl(drill.id, 'md')} download={`drill-report-${drill.id}.md`} className={buttonClass('secondary')}>
            <span aria-hidden>↓</span> Download the report (Markdown)
          </a>
          <a href={drillReportUrl(drill.id, 'json')} download={`drill-${drill.id}.json`} className={buttonClass('secondary')}>
            <span aria-hidden>↓</span> JSON
          </a>
          {drill.status === 'running' && canOperate && (
            <button type="button" className={buttonClass('secondary')} onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              {cancel.isPending ? 'Cancelling…' : 'Cancel the drill'}
            </button>
          )}
        </div>
        {cancel.isError && <ErrorPanel error={cancel.error} title="The drill was not cancelled" compact />}
      </header>
      <DrillSteps drill={drill} />
      {drill.error !== null && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100">
          <p className="font-semibold">The drill stopped {drill.stoppedIn === null ? '' : `while ${drill.stoppedIn === 'failingOver' ? 'failing over the copy' : drill.stoppedIn}`}</p>
          <p className="mt-0.5 break-words">{drill.error}</p>
        </div>
      )}
      <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure label="RTO" value={drill.rtoMs === null ? '–' : formatDuration(drill.rtoMs)} detail="drill start → copy writable" />
        <Figure
          label="RPO at the copy"
          value={drill.rpo.records === null ? 'unknown' : formatCount(drill.rpo.records)}
          detail={`${drill.rpo.records === 1 ? 'record' : 'records'} not mirrored${drill.rpo.seconds === null ? '' : `, oldest ${formatDuration(drill.rpo.seconds * 1000)}`}`}
          tone={drill.rpo.records !== null && drill.rpo.records > 0 ? 'warning' : 'neutral'}
        />
        <Figure
          label="Production lag, p99"
          value={lag === null ? '–' : formatDuration(lag.p99TimeLagMs)}
          detail={lag === null ? 'sampled while the drill runs' : `max ${formatDuration(lag.maxTimeLagMs)} · ${counted(lag.maxOffsetLag, 'record')}, over ${counted(lag.samples, 'sample')}`}
        />
        <Figure label="Checks" value={drill.checks.length === 0 ? '–' : `${drill.checks.length - failedChecks}/${drill.checks.length}`} detail={checksSentence(drill.checks)} tone={failedChecks > 0 ? 'danger' : 'neutral'} />
      </dl>
      <Panel title="Checks on the copy" id="drill-checks">
        <DrillChecks checks={drill.checks} />
      </Panel>
      <Panel title="What the failover wrote on the copy" id="drill-partitions">
        <DrillPartitions drill={drill} />
      </Panel>
      {drill.sandbox.emulation.length > 0 && <EmulationNotes emulation={{ notes: drill.sandbox.emulation }} scope="drill" />}
    </div>
  )
}

function DrillPartitions({ drill }: { drill: Drill }) {
  if (drill.partitions.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-300">No partition was copied yet.</p>
  const shown = [...drill.partitions].sort((a, b) => b.markers.length - a.markers.length).slice(0, PARTITIONS_SHOWN)
  return (
    <div className="space-y-2">
      {drill.skipped.length > 0 && (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Not drilled ({counted(drill.skipped.length, 'partition')} not MIRRORING when the copy was taken):{' '}
          <span className="font-mono text-xs">{drill.skipped.slice(0, 10).map((p) => `${p.topic}-${p.partition} ${p.state}`).join(', ')}</span>
        </p>
      )}
      <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-700">
        <table className="w-full text-left text-sm sm:min-w-[40rem]">
          <caption className="px-3 py-2 text-left text-xs text-slate-600 dark:text-slate-400">
            Read back from the copy&apos;s log after its failover{drill.partitions.length > shown.length ? ` (${shown.length} of ${drill.partitions.length}; the report lists all)` : ''}
          </caption>
          <thead className="bg-slate-50 text-xs text-slate-600 uppercase dark:bg-slate-800 dark:text-slate-300">
            <tr>
              <th scope="col" className="px-3 py-2">Partition</th>
              <th scope="col" className="hidden px-3 py-2 text-right sm:table-cell">Copied up to</th>
              <th scope="col" className="hidden px-3 py-2 sm:table-cell">Planned aborts (producer)</th>
              <th scope="col" className="px-3 py-2">Markers written</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {shown.map((partition) => (
              <tr key={`${partition.topic}-${partition.partition}`} data-partition={`${partition.topic}-${partition.partition}`}>
                <PartitionLinkCell mirror={drill.mirror} topic={partition.topic} partition={partition.partition} />
                <td className="hidden px-3 py-2 text-right font-mono tabular-nums sm:table-cell">{formatOffset(partition.mirroredOffset)}</td>
                <td className="hidden px-3 py-2 font-mono text-xs sm:table-cell">{partition.plannedAborts.length === 0 ? 'none' : partition.plannedAborts.map((abort) => abort.producerId).join(', ')}</td>
                <td className="px-3 py-2">
                  <ul className="flex flex-wrap gap-1.5">
                    {partition.markers.length === 0 && <li className="text-xs text-slate-500 dark:text-slate-400">none yet</li>}
                    {partition.markers.map((marker) => (
                      <li key={marker.offset} className="rounded border border-slate-300 px-1.5 py-0.5 font-mono text-xs dark:border-slate-600">
                        <span aria-hidden>{RECORD_LOOK[marker.type].glyph} </span>
                        {marker.type === 'MIRROR_PID_RESET' ? 'PID reset' : marker.type} at {marker.offset}
                        {marker.producerId !== null && ` · pid ${marker.producerId}`}
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
