'use client'

import Link from 'next/link'
import { partitionHref } from '@/lib/ui/partition-href'
import type { Alert } from '@/lib/api/alerts'
import { RESOLVED_STYLE, SEVERITY_STYLE } from '@/lib/ui/alert-style'
import { formatDuration } from '@/lib/ui/format'
import { RelativeTime } from '@/components/ui/relative-time'

/** A severity (or resolved) badge: glyph, word and colour. */
export function SeverityBadge({ alert }: { alert: Pick<Alert, 'severity' | 'state'> }) {
  const style = alert.state === 'resolved' ? RESOLVED_STYLE : SEVERITY_STYLE[alert.severity]
  return (
    <span className={`inline-flex items-center gap-1 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${style.badge}`}>
      <span aria-hidden className="font-mono leading-none">
        {style.icon}
      </span>
      {style.label}
    </span>
  )
}

function MirrorLink({ mirror }: { mirror: string }) {
  return (
    <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror)}`} className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300">
      {mirror}
    </Link>
  )
}

/** Firing alerts, worst and newest first: what, where, since when, and whether a silence holds its deliveries. */
export function FiringAlerts({ alerts }: { alerts: readonly Alert[] }) {
  if (alerts.length === 0) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
        <span aria-hidden className="grid h-6 w-6 place-items-center rounded-full bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100">
          ✓
        </span>
        No alert is firing.
      </p>
    )
  }
  const ordered = [...alerts].sort((a, b) => (a.severity === b.severity ? b.firedAt - a.firedAt : a.severity === 'critical' ? -1 : 1))
  return (
    <ul aria-label="Firing alerts" className="space-y-3">
      {ordered.map((alert) => (
        <li key={alert.id} className="flex overflow-hidden rounded-md border border-slate-200 dark:border-slate-700">
          <span aria-hidden className={`w-1.5 shrink-0 ${SEVERITY_STYLE[alert.severity].bar}`} />
          <div className="min-w-0 flex-1 space-y-1.5 px-3 py-2.5">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
              <SeverityBadge alert={alert} />
              <span className="font-semibold text-slate-900 dark:text-white">{alert.rule}</span>
              <span className="text-sm text-slate-600 dark:text-slate-300">
                mirror <MirrorLink mirror={alert.mirror} />
                {alert.topic !== undefined && (
                  <>
                    {' · '}
                    {alert.partition !== undefined ? (
                      <Link prefetch={false} href={partitionHref(alert.mirror, alert.topic, alert.partition)} className="font-mono underline-offset-2 hover:underline">
                        {alert.topic}-{alert.partition}
                      </Link>
                    ) : (
                      <>
                        topic <span className="font-mono">{alert.topic}</span>
                      </>
                    )}
                  </>
                )}
              </span>
              {alert.silenced && (
                <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-200" title="A silence of this mirror holds its deliveries">
                  silenced
                </span>
              )}
            </div>
            <p className="text-sm break-words text-slate-800 dark:text-slate-100">{alert.summary}</p>
            <p className="text-xs text-slate-600 dark:text-slate-400">
              Fired <RelativeTime at={alert.firedAt} /> · condition began <RelativeTime at={alert.since} /> · runbook{' '}
              <code className="font-mono">{alert.runbook}</code>
            </p>
          </div>
        </li>
      ))}
    </ul>
  )
}

/** Resolved alerts, newest first, with how long each fired. A table that scrolls inside its box on a phone. */
export function ResolvedAlerts({ alerts }: { alerts: readonly Alert[] }) {
  if (alerts.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-300">No alert has resolved yet.</p>
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[40rem] text-left text-sm">
        <caption className="sr-only">Resolved alerts, newest first</caption>
        <thead className="text-xs text-slate-600 uppercase dark:text-slate-400">
          <tr>
            <th scope="col" className="py-1.5 pr-3 font-medium">Rule</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Mirror</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">What it said</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Resolved</th>
            <th scope="col" className="py-1.5 font-medium">Fired for</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {alerts.map((alert) => (
            <tr key={alert.id} className="align-top">
              <td className="py-2 pr-3 whitespace-nowrap">
                <span className="mr-1.5 text-xs" aria-hidden>
                  {SEVERITY_STYLE[alert.severity].icon}
                </span>
                {alert.rule}
              </td>
              <td className="py-2 pr-3">
                <MirrorLink mirror={alert.mirror} />
              </td>
              <td className="py-2 pr-3 break-words text-slate-700 dark:text-slate-200">{alert.summary}</td>
              <td className="py-2 pr-3 whitespace-nowrap">{alert.resolvedAt === undefined ? '–' : <RelativeTime at={alert.resolvedAt} />}</td>
              <td className="py-2 whitespace-nowrap tabular-nums">{alert.resolvedAt === undefined ? '–' : formatDuration(alert.resolvedAt - alert.firedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
