'use client'

import Link from 'next/link'
import { useEffect, useMemo, useRef, useState } from 'react'
import type { Operation } from '@/lib/api/operations'
import { LISTED_PARTITIONS, STEP_DESCRIPTIONS, summarizeProgress, trackSteps } from '@/lib/failover/progress'
import { STOPPING_STEPS } from '@/lib/mirror/stopping'
import { formatCount, formatDuration, counted } from '@/lib/ui/format'
import { useNow } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import { SwitchoverPhases } from './switchover-phases'

// Partition links here are not prefetched: the slow list changes with every progress event, and each new
// link in view fetched that partition page's server render (446 ms of the page's fetch time, and server
// renders, during a 10,000-partition failover: scripts/bench/ui-failover.ts, UI_FAILOVER_PROFILE).

/** Up to this many partitions are listed one by one; more are counted by step. */
const LISTED_UP_TO = 50

/**
 * Live progress of a failover through the STOPPING steps, per partition, from the operation the event
 * stream keeps current: a bar, the count at each step, and either every partition (a few) or the failed
 * and the slow ones by name (thousands).
 */
export function OperationProgress({ operation, canCancel = false }: { operation: Operation; canCancel?: boolean }) {
  const now = useNow()
  // When this page first saw each partition at its current step (what "slow" is measured from), updated as
  // React advises for state that follows a prop: during render, when the operation's partitions change.
  const clock = now === 0 ? operation.startedAt : now
  const [times, setTimes] = useState(() => trackSteps(null, operation.partitions, clock))
  if (times.partitions !== operation.partitions) setTimes(trackSteps(times, operation.partitions, clock))
  const summary = useMemo(() => summarizeProgress(operation.partitions, times, clock), [operation.partitions, times, clock])
  const percent = Math.floor(summary.fraction * 100)
  const partitionHref = (topic: string, partition: number) => `/mirrors/${encodeURIComponent(operation.mirror)}/partitions/${encodeURIComponent(topic)}/${partition}`

  return (
    <div className="space-y-4">
      <SwitchoverPhases operation={operation} now={clock} canCancel={canCancel} />
      <div>
        <div className="flex flex-wrap items-baseline justify-between gap-2 text-sm">
          <p>
            <span className="text-2xl font-semibold tabular-nums" data-testid="partitions-done">
              {formatCount(summary.done)}
            </span>{' '}
            of <span className="tabular-nums">{formatCount(summary.total)}</span> {summary.total === 1 ? 'partition' : 'partitions'} done
          </p>
          <p className="text-slate-600 dark:text-slate-400">
            {operation.status === 'running' ? `running for ${formatDuration(now === 0 ? 0 : Math.max(0, now - operation.startedAt))}` : operation.status}
          </p>
        </div>
        <div
          role="progressbar"
          aria-label="Failover progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          className="mt-2 h-2.5 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800"
        >
          <div className={`h-full ${summary.failedCount > 0 ? 'bg-red-600' : 'bg-indigo-600 dark:bg-indigo-400'}`} style={{ width: `${percent}%` }} />
        </div>
      </div>

      <ol className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-3" aria-label="Partitions at each STOPPING step">
        {STOPPING_STEPS.map((step, index) => (
          <li key={step} className="rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700" data-step={step}>
            <div className="flex items-baseline justify-between gap-2">
              <span className="font-mono text-sm">
                {index + 1}. {step}
              </span>
              <span className="font-semibold tabular-nums" data-testid={`step-count-${step}`}>
                {formatCount(summary.byStep[step])}
              </span>
            </div>
            <p className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">{STEP_DESCRIPTIONS[step]}</p>
          </li>
        ))}
      </ol>

      {summary.failedCount > 0 && (
        <section aria-labelledby="progress-failed" className="rounded-lg border border-red-300 p-3 dark:border-red-800">
          <h3 id="progress-failed" className="text-sm font-semibold text-red-800 dark:text-red-300">
            ✕ {counted(summary.failedCount, 'partition')} failed{summary.failedCount > LISTED_PARTITIONS ? ` (the first ${LISTED_PARTITIONS})` : ''}
          </h3>
          <ul className="mt-1 space-y-1 text-sm">
            {summary.failed.map((partition) => (
              <li key={`${partition.topic}-${partition.partition}`} className="break-words">
                <Link prefetch={false} className="font-mono text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={partitionHref(partition.topic, partition.partition)}>
                  {partition.topic}-{partition.partition}
                </Link>{' '}
                at <span className="font-mono">{partition.step}</span>: {partition.error ?? partition.state}
              </li>
            ))}
          </ul>
          <p className="mt-2 text-sm">A failed stop is retried with backoff; one that stays FAILED can be recovered from the mirror page, then failed over again for its topics.</p>
        </section>
      )}

      {summary.total <= LISTED_UP_TO ? (
        <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-700">
          <table className="w-full min-w-[28rem] text-left text-sm">
            <caption className="sr-only">Every partition of the operation with its STOPPING step</caption>
            <thead className="bg-slate-50 text-xs text-slate-600 uppercase dark:bg-slate-800 dark:text-slate-300">
              <tr>
                <th scope="col" className="px-3 py-2">Partition</th>
                <th scope="col" className="px-3 py-2">Step</th>
                <th scope="col" className="px-3 py-2">State</th>
                <th scope="col" className="px-3 py-2">Error</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {operation.partitions.map((partition) => (
                <tr key={`${partition.topic}-${partition.partition}`} data-partition={`${partition.topic}-${partition.partition}`}>
                  <td className="px-3 py-2 font-mono break-all">
                    <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={partitionHref(partition.topic, partition.partition)}>
                      {partition.topic}-{partition.partition}
                    </Link>
                  </td>
                  <td className="px-3 py-2 font-mono">{partition.step === 'done' ? '✓ done' : partition.step}</td>
                  <td className="px-3 py-2">
                    <StateBadge state={partition.state} size="sm" />
                  </td>
                  <td className="px-3 py-2 break-words text-red-800 dark:text-red-300">{partition.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        summary.slowCount > 0 && (
          <section aria-labelledby="progress-slow" className="rounded-lg border border-amber-300 p-3 dark:border-amber-800">
            <h3 id="progress-slow" className="text-sm font-semibold text-amber-900 dark:text-amber-200">
              ◷ {counted(summary.slowCount, 'partition')} slow (same step for over 5 s){summary.slowCount > LISTED_PARTITIONS ? `, the ${LISTED_PARTITIONS} slowest` : ''}
            </h3>
            <ul className="mt-1 grid grid-cols-1 gap-x-4 gap-y-0.5 text-sm sm:grid-cols-2">
              {summary.slow.map((partition) => (
                <li key={`${partition.topic}-${partition.partition}`} className="break-words">
                  <Link prefetch={false} className="font-mono text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={partitionHref(partition.topic, partition.partition)}>
                    {partition.topic}-{partition.partition}
                  </Link>{' '}
                  <span className="font-mono">{partition.step}</span> · {formatDuration(partition.forMs)}
                </li>
              ))}
            </ul>
          </section>
        )
      )}
    </div>
  )
}

/** Calls `onFinished` once the operation is no longer running. */
export function useWhenFinished(operation: Operation | undefined, onFinished: () => void): void {
  const called = useRef(false)
  useEffect(() => {
    if (operation === undefined || operation.status === 'running' || called.current) return
    called.current = true
    onFinished()
  }, [operation, onFinished])
}
