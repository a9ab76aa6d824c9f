'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { storeWorkload, useWorkloads } from '@/components/data/use-demo'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { MAX_WORKLOAD_RATE, type Workload, type WorkloadKind } from '@/lib/api/demo'
import { demoEndpoints } from '@/lib/api/routes'
import { formatCount } from '@/lib/ui/format'
import { WORKLOAD_STATE_STYLE, workloadState } from '@/lib/ui/status-style'
import { StatusBadge } from '@/components/ui/status-badge'

const KIND_LABEL = {
  transactional: 'Transactional producer',
  idempotent: 'Idempotent producer',
  plain: 'Plain producer',
  consumer: 'Consumer group',
} as const satisfies Record<WorkloadKind, string>

/** The live producers and consumer groups of the demo: their rate, pause and resume. */
export function WorkloadsPanel() {
  const workloads = useWorkloads()
  return (
    <Panel title="Workloads" id="workloads">
      {workloads.isPending ? (
        <div className="space-y-2">
          <Skeleton className="h-14" />
          <Skeleton className="h-14" />
          <Skeleton className="h-14" />
        </div>
      ) : workloads.isError ? (
        <ErrorPanel error={workloads.error} title="Could not load the workloads" onRetry={() => void workloads.refetch()} />
      ) : workloads.data.workloads.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">No workloads: the demo has not set up its live clusters yet.</p>
      ) : (
        <div>
          <div
            aria-hidden
            className="hidden grid-cols-[minmax(0,1.5fr)_minmax(0,1fr)_6.5rem_15.5rem_9.5rem] gap-4 border-b border-slate-100 pb-2 text-xs font-medium tracking-wide text-slate-500 uppercase lg:grid dark:border-slate-800 dark:text-slate-400"
          >
            <span>Workload</span>
            <span>Topic</span>
            <span className="text-right">Records · now</span>
            <span>Rate</span>
            <span className="text-right">State</span>
          </div>
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {workloads.data.workloads.map((workload) => (
              <WorkloadRow key={workload.name} workload={workload} />
            ))}
          </ul>
        </div>
      )}
    </Panel>
  )
}

function WorkloadRow({ workload }: { workload: Workload }) {
  const queryClient = useQueryClient()
  const [rate, setRate] = useState(String(workload.ratePerSecond))
  const [editing, setEditing] = useState(false)
  const toggle = useMutation({
    mutationFn: () => callEndpoint(workload.paused ? demoEndpoints.resumeWorkload : demoEndpoints.pauseWorkload, { params: { name: workload.name } }),
    onSuccess: (answer) => storeWorkload(queryClient, answer.workload),
  })
  const setRateMutation = useMutation({
    mutationFn: (ratePerSecond: number) => callEndpoint(demoEndpoints.updateWorkload, { params: { name: workload.name }, body: { ratePerSecond } }),
    onSuccess: (answer) => {
      storeWorkload(queryClient, answer.workload)
      setEditing(false)
    },
  })
  // The field follows the server's rate until the operator starts typing.
  const shownRate = editing ? rate : String(workload.ratePerSecond)
  function submit(event: FormEvent) {
    event.preventDefault()
    // The server checks the range (400 VALIDATION_FAILED); a non-number is sent as typed so that refusal shows.
    const value = shownRate.trim() === '' ? Number.NaN : Number(shownRate)
    toggle.reset()
    setRateMutation.mutate(Number.isNaN(value) ? -1 : value)
  }
  const unit = workload.kind === 'consumer' ? 'consumed/s' : 'records/s'
  const inputId = `rate-${workload.name}`
  const error = toggle.error ?? setRateMutation.error
  return (
    <li className="py-3" aria-label={workload.name}>
      <div className="grid gap-x-4 gap-y-2 lg:grid-cols-[minmax(0,1.5fr)_minmax(0,1fr)_6.5rem_15.5rem_9.5rem] lg:items-center">
        <div className="min-w-0">
          <div className="flex items-start justify-between gap-2">
            <p className="font-mono text-sm font-medium break-all text-slate-900 dark:text-slate-100">{workload.name}</p>
            <span className="shrink-0 lg:hidden">
              <WorkloadState workload={workload} />
            </span>
          </div>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            {/* A consumer's description names its group already. */}
            {workload.kind !== 'consumer' && `${KIND_LABEL[workload.kind]} · `}
            {workload.description}
          </p>
          <p className="mt-1 text-sm text-slate-700 lg:hidden dark:text-slate-300">
            <span className="font-mono">{workload.topic}</span>
            <span className="text-slate-500 dark:text-slate-400"> on </span>
            <span className="font-mono">{workload.cluster}</span>
            <span className="text-slate-500 dark:text-slate-400"> · </span>
            <span className="tabular-nums">{formatCount(workload.recordsTotal)}</span>
            <span className="text-slate-500 dark:text-slate-400"> {workload.kind === 'consumer' ? 'consumed' : 'written'} · </span>
            <WorkloadNow workload={workload} />
          </p>
        </div>
        <p className="hidden min-w-0 text-sm text-slate-700 lg:block dark:text-slate-300">
          <span className="font-mono">{workload.topic}</span>
          <span className="text-slate-500 dark:text-slate-400"> on </span>
          <span className="font-mono">{workload.cluster}</span>
        </p>
        <div className="hidden text-right lg:block">
          <p className="text-sm tabular-nums text-slate-700 dark:text-slate-300" title={`${workload.recordsTotal} records since the server started`}>
            {formatCount(workload.recordsTotal)}
          </p>
          <p className="text-xs">
            <WorkloadNow workload={workload} />
          </p>
        </div>
        <div className="flex items-center justify-between gap-2 lg:contents">
          <form onSubmit={submit} className="flex items-center gap-2" noValidate>
            <label htmlFor={inputId} className="sr-only">
              Rate of {workload.name} ({unit})
            </label>
            <input
              id={inputId}
              type="number"
              inputMode="numeric"
              min={0}
              max={MAX_WORKLOAD_RATE}
              step={1}
              value={shownRate}
              onChange={(event) => {
                setEditing(true)
                setRate(event.target.value)
              }}
              className="w-20 rounded-md border border-slate-300 bg-white px-2 py-1 text-right font-mono text-sm text-slate-900 tabular-nums focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
            />
            <span className="text-xs text-slate-500 dark:text-slate-400">{unit}</span>
            <button type="submit" className={buttonClass('secondary', 'sm')} disabled={setRateMutation.isPending || !editing} aria-label={`Set the rate of ${workload.name}`}>
              {setRateMutation.isPending ? 'Setting…' : 'Set'}
            </button>
          </form>
          <div className="flex items-center justify-end gap-2">
            <span className="hidden lg:inline">
              <WorkloadState workload={workload} />
            </span>
            <button
              type="button"
              className={buttonClass('secondary', 'sm')}
              disabled={toggle.isPending}
              onClick={() => {
                setRateMutation.reset()
                toggle.mutate()
              }}
              aria-label={`${workload.paused ? 'Resume' : 'Pause'} ${workload.name}`}
            >
              {toggle.isPending ? (workload.paused ? 'Resuming…' : 'Pausing…') : workload.paused ? 'Resume' : 'Pause'}
            </button>
          </div>
        </div>
      </div>
      {workload.lastError !== null && !workload.paused && (
        <p className="mt-1.5 text-xs break-words text-amber-800 dark:text-amber-200">
          <span aria-hidden>⚠ </span>Last call failed: {workload.lastError}
        </p>
      )}
      {error !== null && (
        <div className="mt-2">
          <ErrorPanel
            error={error}
            title={toggle.error !== null ? `Could not ${workload.paused ? 'resume' : 'pause'} ${workload.name}` : `Could not set the rate of ${workload.name}`}
            compact
          />
        </div>
      )}
    </li>
  )
}

/**
 * What the workload does this moment: a producer's rate on its traffic curve (the field holds the set rate),
 * a consumer group's records not read yet. Both come from the server, as measured there.
 */
function WorkloadNow({ workload }: { workload: Workload }) {
  if (workload.kind === 'consumer') {
    const behind = workload.behindRecords
    return (
      <span
        className={`tabular-nums ${behind !== null && behind > 0 ? 'text-amber-800 dark:text-amber-200' : 'text-slate-500 dark:text-slate-400'}`}
        title="Committed records the group has not read yet, at its last read"
      >
        {behind === null ? 'not read yet' : behind === 0 ? 'caught up' : `${formatCount(behind)} behind`}
      </span>
    )
  }
  return (
    <span className="tabular-nums text-slate-500 dark:text-slate-400" title={`${workload.currentRatePerSecond} records/s now; the rate set is the day's average`}>
      {`now ${formatCount(workload.currentRatePerSecond)}/s`}
    </span>
  )
}

function WorkloadState({ workload }: { workload: Workload }) {
  return <StatusBadge look={WORKLOAD_STATE_STYLE[workloadState(workload)]} className="shrink-0" />
}
