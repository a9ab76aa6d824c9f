'use client'

import { useState } from 'react'
import { useMirrorTimeline } from '@/components/data/use-mirror-timeline'
import { RelativeTime } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import type { MirrorTimelineEntry } from '@/lib/api/mirror-timeline'
import { eventWords } from '@/lib/ui/event-words'
import { clockTime, exactTime, formatDuration, formatInteger } from '@/lib/ui/format'

const FIRST_ROWS = 8

const touchesFailed = (entry: MirrorTimelineEntry) => entry.kind === 'storm' || entry.from === 'FAILED' || entry.to === 'FAILED'

/**
 * The mirror's incident timeline (issue #33 item 7), newest first: when it broke, the retries as one row
 * ("FAILED ⇄ MIRRORING × 11 for 4 min"), when it healed and what operators did, each with its time and how many
 * partitions. Shown once the mirror has had a failure; nothing in calm times (the partition pages keep every step).
 */
export function MirrorTimeline({ mirror }: { mirror: string }) {
  const timeline = useMirrorTimeline(mirror)
  const [showAll, setShowAll] = useState(false)
  const entries = timeline.data?.entries ?? []
  if (!entries.some(touchesFailed)) return null
  const rows = [...entries].reverse()
  const shown = showAll ? rows : rows.slice(0, FIRST_ROWS)
  return (
    <section aria-labelledby="mirror-timeline-title" className="rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900" data-testid="mirror-timeline">
      <h2 id="mirror-timeline-title" className="border-b border-slate-100 px-4 py-2.5 text-sm font-semibold text-slate-900 dark:border-slate-800 dark:text-slate-100">
        Incident timeline <span className="font-normal text-slate-500 dark:text-slate-400">(newest first)</span>
      </h2>
      <ol aria-label="What happened to the mirror's partitions, newest first" className="divide-y divide-slate-100 px-4 dark:divide-slate-800">
        {shown.map((entry) => (
          <TimelineEntry key={`${entry.kind}-${entry.at}-${entry.from}-${entry.to}`} entry={entry} />
        ))}
      </ol>
      {rows.length > FIRST_ROWS && (
        <button
          type="button"
          onClick={() => setShowAll((value) => !value)}
          className="mx-4 mb-2 rounded text-sm font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300"
        >
          {showAll ? `Show the newest ${FIRST_ROWS}` : `Show all ${rows.length} entries`}
        </button>
      )}
    </section>
  )
}

function TimelineEntry({ entry }: { entry: MirrorTimelineEntry }) {
  const partitions = `${formatInteger(entry.partitions)} ${entry.partitions === 1 ? 'partition' : 'partitions'}`
  const lasted = entry.until - entry.at
  return (
    <li className="grid grid-cols-[4.75rem_minmax(0,1fr)] gap-x-3 py-2" data-kind={entry.kind} data-to={entry.to}>
      <div className="text-xs leading-5">
        <time dateTime={exactTime(entry.at)} title={exactTime(entry.at)} className="block font-mono text-slate-900 dark:text-slate-100">
          {clockTime(entry.at)}
        </time>
        <RelativeTime at={entry.at} className="block text-slate-500 dark:text-slate-400" />
      </div>
      <div className="min-w-0 text-sm">
        {entry.kind === 'storm' ? (
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span className="rounded bg-red-50 px-1.5 py-0.5 font-semibold text-red-900 dark:bg-red-950/60 dark:text-red-100" data-testid="mirror-retry-storm">
              {entry.path} × {entry.failures}
            </span>
            <span className="text-slate-700 dark:text-slate-200">
              {entry.ongoing ? `${partitions} retrying with backoff for ${formatDuration(lasted)} so far, latest at ${clockTime(entry.until)}` : `${partitions} retried with backoff for ${formatDuration(lasted)}, until ${clockTime(entry.until)}`}
            </span>
          </p>
        ) : (
          <p className="flex flex-wrap items-center gap-x-1.5 gap-y-1">
            <StateBadge state={entry.from} size="sm" />
            <span aria-hidden className="text-slate-400">
              →
            </span>
            <span className="sr-only">to</span>
            <StateBadge state={entry.to} size="sm" />
            <span className="text-slate-700 dark:text-slate-200">
              {partitions}
              {lasted >= 1_000 ? ` within ${formatDuration(lasted)}` : ''}: {eventWords(entry.reason)}
            </span>
          </p>
        )}
        {entry.error !== null && <p className="mt-0.5 font-mono text-xs break-words text-red-800 dark:text-red-300">{entry.error}</p>}
      </div>
    </li>
  )
}
