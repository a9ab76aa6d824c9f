'use client'

import { RelativeTime, useNow } from '@/components/ui/relative-time'
import { Panel } from '@/components/ui/panel'
import { StatusBadge } from '@/components/ui/status-badge'
import type { ControlClusterStatus } from '@/lib/api/instances'
import { clockTime, formatDuration } from '@/lib/ui/format'
import { CONTROL_CLUSTER_STYLE } from '@/lib/ui/status-style'

/**
 * The control cluster as the answering instance sees it (GET /api/v1/instances' `control`). Unreachable, it is an
 * incident: a red banner above the group that says since when, the last error, what still works (reads, the mirrors
 * running here) and what does not (changes: CONTROL_CLUSTER_UNAVAILABLE), and that the list below is this instance's
 * last view of the group (instance-list.tsx shows nobody alive or dead meanwhile). Reachable,
 * a panel: since when, how old each copy of the shared state is, and the last outage.
 */
export function ControlClusterStatusView({ control }: { control: ControlClusterStatus }) {
  return control.reachable ? <ControlClusterPanel control={control} /> : <ControlClusterIncident control={control} />
}

function ControlClusterIncident({ control }: { control: ControlClusterStatus }) {
  return (
    <section
      aria-labelledby="control-incident-title"
      data-testid="control-cluster-incident"
      className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-950 shadow-sm dark:border-red-800 dark:bg-red-950 dark:text-red-50"
    >
      <h2 id="control-incident-title" className="flex items-start gap-2 text-base font-semibold">
        <span aria-hidden className="grid h-6 w-6 shrink-0 place-items-center rounded-full bg-red-600 text-xs text-white dark:bg-red-500">
          ✕
        </span>
        <span className="min-w-0">Control cluster unreachable</span>
      </h2>
      <p className="mt-1.5">
        No answer to this instance since{' '}
        <time dateTime={new Date(control.since).toISOString()} className="font-semibold tabular-nums">
          {clockTime(control.since)} UTC
        </time>{' '}
        (<RelativeTime at={control.since} />) from <span className="font-mono break-all">{control.bootstrap.join(', ')}</span>.
      </p>
      {control.lastError !== null && (
        <p className="mt-1 font-mono text-xs break-words text-red-900 dark:text-red-200" data-testid="control-last-error">
          {control.lastError}
        </p>
      )}
      <ul className="mt-2 list-disc space-y-1 pl-5">
        <li>
          <span className="font-semibold">Changes are refused</span> (<code className="font-mono text-xs">CONTROL_CLUSTER_UNAVAILABLE</code>) until it answers; signing in
          and out still work.
        </li>
        <li>The mirrors running on this instance keep mirroring, and reads keep answering.</li>
        <li>
          What this instance knows of the group is <ViewAge control={control} /> old: the instances below are as it last read them, and whether the others are alive
          is not known here. Instances that still reach the control cluster take over this instance&apos;s mirrors after the session timeout.
        </li>
      </ul>
    </section>
  )
}

function ControlClusterPanel({ control }: { control: ControlClusterStatus }) {
  const outage = control.lastOutage
  return (
    <Panel id="control-cluster" title="Control cluster" actions={<StatusBadge look={CONTROL_CLUSTER_STYLE.reachable} data-testid="control-cluster-status" />}>
      <div data-testid="control-cluster">
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
          <dt className="text-slate-600 dark:text-slate-400">Reachable since</dt>
          <dd data-testid="control-since">
            <time dateTime={new Date(control.since).toISOString()} className="tabular-nums">
              {clockTime(control.since)} UTC
            </time>{' '}
            <span className="text-slate-600 dark:text-slate-300">
              (<RelativeTime at={control.since} />)
            </span>
          </dd>
          <dt className="text-slate-600 dark:text-slate-400">Address</dt>
          <dd className="font-mono break-all">{control.bootstrap.join(', ')}</dd>
          <dt className="text-slate-600 dark:text-slate-400">Group</dt>
          <dd className="font-mono break-all">{control.group}</dd>
          <dt className="text-slate-600 dark:text-slate-400">Shared state</dt>
          <dd data-testid="control-view-age">
            last read <ViewAge control={control} /> ago <span className="text-slate-600 dark:text-slate-300">(the oldest of this instance&apos;s copies of the control topics)</span>
          </dd>
          <dt className="text-slate-600 dark:text-slate-400">Last outage</dt>
          <dd data-testid="control-last-outage">
            {outage === null ? (
              <span className="text-slate-600 dark:text-slate-300">none since this instance started</span>
            ) : (
              <>
                <span className="tabular-nums">
                  {clockTime(outage.from)}–{clockTime(outage.to)} UTC
                </span>{' '}
                ({formatDuration(outage.to - outage.from)} without an answer)
                {outage.lastError !== null && <span className="mt-0.5 block font-mono text-xs break-words text-slate-600 dark:text-slate-300">{outage.lastError}</span>}
              </>
            )}
          </dd>
          {control.lastError !== null && (
            <>
              <dt className="text-slate-600 dark:text-slate-400">Last failure</dt>
              <dd className="font-mono text-xs break-words text-amber-800 dark:text-amber-200" data-testid="control-last-error">
                {control.lastError}
              </dd>
            </>
          )}
        </dl>
        <details className="mt-3 text-sm">
          <summary className="cursor-pointer text-slate-700 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:text-slate-100">
            Each control topic as this instance last read it
          </summary>
          <ul className="mt-2 space-y-1" aria-label="Control topics">
            {control.topics.map((view) => (
              <li key={view.topic} className="flex flex-wrap justify-between gap-x-3">
                <span className="font-mono break-all">{view.topic}</span>
                <span className="text-slate-600 tabular-nums dark:text-slate-300">{view.readAt === null ? 'not read yet' : <RelativeTime at={view.readAt} />}</span>
              </li>
            ))}
          </ul>
        </details>
      </div>
    </Panel>
  )
}

/** The oldest copy's age, ticking with the page's clock (the answer's figure until the page has one). */
function ViewAge({ control }: { control: ControlClusterStatus }) {
  const now = useNow()
  const read = control.topics.map((view) => view.readAt)
  if (control.viewAgeMs === null || read.includes(null)) return <span className="font-semibold">not yet known</span>
  const oldest = Math.min(...(read as number[]))
  const age = now === 0 ? control.viewAgeMs : Math.max(control.viewAgeMs, now - oldest)
  return <span className="font-semibold tabular-nums">{formatDuration(Math.floor(age / 1000) * 1000)}</span>
}
