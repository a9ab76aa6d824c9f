'use client'

import { useState } from 'react'
import { RelativeTime } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import type { PartitionHistory } from '@/lib/api/mirrors'
import { eventWords } from '@/lib/ui/event-words'
import { clockTime, dateTime, exactTime, formatDuration } from '@/lib/ui/format'
import { collapseRetryStorms, stormLabel, type TimelineEntry } from '@/lib/ui/retry-storms'

type Transition = PartitionHistory['transitions'][number]

/** How many rows show before "show all": the recent past is what an operator reads first. */
const FIRST_ROWS = 30

/**
 * One row per transition, newest first (the order used everywhere on this page), like Temporal's history:
 * time on the left, from → to, why; a FAILED row shows its error and attempt at once; details expand. A retry
 * storm is one row with its count ("FAILED ⇄ MIRRORING × 11"), its transitions on demand.
 */
export function TransitionTimeline({ transitions, currentError }: { transitions: readonly Transition[]; currentError: string | null }) {
  const [showAll, setShowAll] = useState(false)
  if (transitions.length === 0) {
    return <p className="text-sm text-slate-600 dark:text-slate-300">No transitions yet: the partition has not left its first state.</p>
  }
  // Retry storms as one row each (lib/ui/retry-storms.ts), newest first; each row knows when its state ended (the
  // next transition) to say how long it lasted.
  const rows = collapseRetryStorms(transitions).reverse()
  const shown = showAll ? rows : rows.slice(0, FIRST_ROWS)
  return (
    <div>
      <ol aria-label="Transitions, newest first" className="divide-y divide-slate-100 dark:divide-slate-800">
        {shown.map((entry) =>
          entry.kind === 'storm' ? (
            <StormRow key={`storm-${entry.first}`} storm={entry} endedAt={transitions[(entry.transitions.at(-1)?.index ?? 0) + 1]?.at ?? null} currentError={currentError} />
          ) : (
            <TimelineRow
              key={`${entry.index}-${entry.transition.at}`}
              transition={entry.transition}
              endedAt={transitions[entry.index + 1]?.at ?? null}
              // The partition keeps the error of its current failure; older servers did not put it on the transition.
              error={entry.transition.error ?? (entry.index === transitions.length - 1 && entry.transition.to === 'FAILED' ? currentError : null)}
              latest={entry.index === transitions.length - 1}
            />
          ),
        )}
      </ol>
      {rows.length > FIRST_ROWS && (
        <button
          type="button"
          onClick={() => setShowAll((value) => !value)}
          className="mt-2 rounded text-sm font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300"
        >
          {showAll ? `Show the newest ${FIRST_ROWS}` : `Show all ${rows.length} rows`}
        </button>
      )}
    </div>
  )
}

type Storm = Extract<TimelineEntry<Transition>, { kind: 'storm' }>

/**
 * A retry storm in one row: "FAILED ⇄ MIRRORING × 11" from its first to its last transition, how long, the last
 * error and attempt; its transitions on demand.
 */
function StormRow({ storm, endedAt, currentError }: { storm: Storm; endedAt: number | null; currentError: string | null }) {
  const [open, setOpen] = useState(false)
  const latest = endedAt === null
  const detailsId = `storm-${storm.first}`
  const error = storm.lastError ?? (latest && storm.endsIn === 'FAILED' ? currentError : null)
  return (
    <li className="py-2" data-to={storm.endsIn} data-storm={storm.failures}>
      <div className="grid grid-cols-[4.75rem_minmax(0,1fr)] gap-x-3">
        <div className="text-xs leading-5">
          <time dateTime={exactTime(storm.last)} title={`${exactTime(storm.first)} to ${exactTime(storm.last)}`} className="block font-mono text-slate-900 dark:text-slate-100">
            {clockTime(storm.last)}
          </time>
          <span className="block text-slate-500 dark:text-slate-400">from</span>
          <time dateTime={exactTime(storm.first)} className="block font-mono text-slate-500 dark:text-slate-400">
            {clockTime(storm.first)}
          </time>
        </div>
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-1.5">
            <span className="rounded bg-red-50 px-1.5 py-0.5 text-sm font-semibold text-red-900 dark:bg-red-950/60 dark:text-red-100" data-testid="retry-storm">
              {stormLabel(storm.path)} × {storm.failures}
            </span>
            {latest && <span className="text-[11px] font-semibold uppercase tracking-wide text-indigo-700 dark:text-indigo-300">now</span>}
            <button
              type="button"
              aria-expanded={open}
              aria-controls={detailsId}
              onClick={() => setOpen((value) => !value)}
              className="ml-auto rounded px-1 text-xs text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
            >
              {open ? 'Hide' : `${storm.transitions.length} transitions`}
              <span className="sr-only"> of the retry storm from {clockTime(storm.first)}</span>
            </button>
          </div>
          <p className="mt-0.5 text-sm text-slate-700 dark:text-slate-200">
            {storm.failures} failures in {formatDuration(Math.max(0, storm.last - storm.first))}, retried with backoff
            {storm.lastAttempt !== null && storm.lastAttempt > 0 ? `; last attempt ${storm.lastAttempt}` : ''}
            {latest ? `; ${storm.endsIn} now` : ''}
          </p>
          {error !== null && (
            <p className="mt-1 break-words rounded bg-red-50 px-2 py-1 text-sm text-red-900 dark:bg-red-950/60 dark:text-red-100">
              <span className="font-semibold">Last error:</span> {error}
            </p>
          )}
          {open && (
            <ol id={detailsId} aria-label={`Transitions of the retry storm from ${clockTime(storm.first)}`} className="mt-1.5 space-y-0.5 rounded bg-slate-50 px-2 py-1.5 font-mono text-xs dark:bg-slate-800/60">
              {[...storm.transitions].reverse().map(({ transition, index }) => (
                <li key={index} className="flex flex-wrap gap-x-2 text-slate-800 dark:text-slate-200">
                  <time dateTime={exactTime(transition.at)}>{clockTime(transition.at)}</time>
                  <span>
                    {transition.from} → {transition.to}
                  </span>
                  {transition.retryAttempt !== undefined && <span className="text-slate-500 dark:text-slate-400">attempt {transition.retryAttempt}</span>}
                </li>
              ))}
            </ol>
          )}
        </div>
      </div>
    </li>
  )
}

function TimelineRow({ transition, endedAt, error, latest }: { transition: Transition; endedAt: number | null; error: string | null; latest: boolean }) {
  const [open, setOpen] = useState(false)
  const failed = transition.to === 'FAILED'
  const attempt = transition.retryAttempt
  const detailsId = `transition-${transition.at}-${transition.from}-${transition.to}`
  return (
    <li className="py-2" data-to={transition.to}>
      <div className="grid grid-cols-[4.75rem_minmax(0,1fr)] gap-x-3">
        <div className="text-xs leading-5">
          <time dateTime={exactTime(transition.at)} title={exactTime(transition.at)} className="block font-mono text-slate-900 dark:text-slate-100">
            {clockTime(transition.at)}
          </time>
          <RelativeTime at={transition.at} className="block text-slate-500 dark:text-slate-400" />
        </div>
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-1.5">
            <StateBadge state={transition.from} size="sm" />
            <span aria-hidden className="text-slate-400">
              →
            </span>
            <span className="sr-only">to</span>
            <StateBadge state={transition.to} size="sm" />
            {latest && <span className="text-[11px] font-semibold uppercase tracking-wide text-indigo-700 dark:text-indigo-300">now</span>}
            <button
              type="button"
              aria-expanded={open}
              aria-controls={detailsId}
              onClick={() => setOpen((value) => !value)}
              className="ml-auto rounded px-1 text-xs text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
            >
              {open ? 'Hide details' : 'Details'}
              <span className="sr-only">
                {' '}
                of {transition.from} to {transition.to} at {clockTime(transition.at)}
              </span>
            </button>
          </div>
          <p className="mt-0.5 break-words text-sm text-slate-700 dark:text-slate-200">{eventWords(transition.reason)}</p>
          {failed && error !== null && (
            <p className="mt-1 break-words rounded bg-red-50 px-2 py-1 text-sm text-red-900 dark:bg-red-950/60 dark:text-red-100">
              <span className="font-semibold">Error:</span> {error}
            </p>
          )}
          {attempt !== undefined && (
            <p className="mt-0.5 text-xs font-medium text-slate-700 dark:text-slate-200">
              {attempt === -1 ? 'Not retryable: waits for an operator to recover it' : failed ? `Failure ${attempt} in a row` : `Retry attempt ${attempt}`}
            </p>
          )}
          {open && (
            <dl id={detailsId} className="mt-1.5 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 rounded bg-slate-50 px-2 py-1.5 text-xs dark:bg-slate-800/60">
              <dt className="text-slate-500 dark:text-slate-400">at</dt>
              <dd className="font-mono text-slate-900 dark:text-slate-100">{dateTime(transition.at)}</dd>
              <dt className="text-slate-500 dark:text-slate-400">in {transition.to}</dt>
              <dd className="text-slate-900 dark:text-slate-100">{endedAt === null ? 'still there' : `for ${formatDuration(endedAt - transition.at)}`}</dd>
              <dt className="text-slate-500 dark:text-slate-400">why</dt>
              <dd className="break-words text-slate-900 dark:text-slate-100">{eventWords(transition.reason)}</dd>
              {error !== null && (
                <>
                  <dt className="text-slate-500 dark:text-slate-400">error</dt>
                  <dd className="break-words text-slate-900 dark:text-slate-100">{error}</dd>
                </>
              )}
              <dt className="text-slate-500 dark:text-slate-400">attempt</dt>
              <dd className="text-slate-900 dark:text-slate-100">{attempt === undefined ? 'none (healthy)' : attempt === -1 ? 'not retryable' : String(attempt)}</dd>
            </dl>
          )}
        </div>
      </div>
    </li>
  )
}
