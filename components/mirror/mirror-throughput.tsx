'use client'

import { useMirrorFlow } from '@/components/data/use-mirrors'
import type { Mirror } from '@/lib/api/mirrors'
import { clockTime } from '@/lib/ui/format'
import type { MirrorSnapshot } from '@/lib/ui/mirror-snapshot'
import { throughputText } from '@/lib/ui/throughput-text'

/**
 * What flows now, beside the lag (issue #33 item 9): records and bytes per second appended to the destination,
 * the fetch latency, the throttle's use, and what holds the mirror back. Read from the mirror's own answer, re-read
 * every 2 s (not from the whole mirror list, which every lag event of any mirror had the page read again).
 */
export function MirrorThroughput({ mirror, snapshot }: { mirror: Mirror; snapshot: MirrorSnapshot | null }) {
  const current = useMirrorFlow(mirror.name).data ?? mirror
  const text = throughputText(current, snapshot?.lagUnknown ?? null)
  // A failed-over mirror fetches nothing by design: "no fetch was answered: the source or the link is down" would
  // report an incident that is not there (the header and the chart say it is not mirroring).
  if (text === null || (snapshot?.notMirroringBecause ?? null) !== null) return null
  return (
    <section aria-label="Throughput" data-testid="mirror-throughput" data-limit={text.limit} className="rounded-lg border border-slate-200 bg-white px-4 py-2.5 text-sm shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1.5 sm:flex sm:flex-wrap sm:items-baseline">
        <Flow label="Records in">{text.records}</Flow>
        <Flow label="Bytes in">{text.bytes}</Flow>
        <Flow label="Fetch latency">{text.latency}</Flow>
        {text.throttle !== null && <Flow label="Throttle use">{text.throttle}</Flow>}
      </dl>
      <p className={`mt-1 text-xs ${text.limit === 'none' || text.limit === 'firstFetch' ? 'text-slate-600 dark:text-slate-400' : 'font-medium text-amber-900 dark:text-amber-200'}`}>
        {text.limit === 'none' || text.limit === 'firstFetch' ? '' : <span aria-hidden>⚠ </span>}
        {text.silent ? 'Now' : `Over the 10 s to ${current.throughput === undefined ? 'now' : `${clockTime(current.throughput.asOf)} UTC`}`}: {text.limitText}.
      </p>
    </section>
  )
}

function Flow({ label, children }: { label: string; children: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="font-medium break-words tabular-nums text-slate-900 dark:text-slate-100">{children}</dd>
    </div>
  )
}
