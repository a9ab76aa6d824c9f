'use client'

import Link from 'next/link'
import { useAlerts } from '@/components/data/use-alerts'

/** The header's bell: how many alerts fire now, live (alert events refetch it), linking to /alerts. */
export function AlertBell() {
  const firing = useAlerts({ state: 'firing' })
  const alerts = firing.data?.alerts ?? []
  const count = alerts.length
  const critical = alerts.some((alert) => alert.severity === 'critical')
  const label = firing.data === undefined ? 'Alerts' : count === 0 ? 'Alerts: none firing' : `Alerts: ${count} firing`
  return (
    <Link prefetch={false}
      href="/alerts"
      aria-label={label}
      title={label}
      className="relative inline-flex h-8 min-w-8 items-center justify-center gap-1 rounded-md px-1.5 text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
    >
      <svg aria-hidden viewBox="0 0 20 20" className="h-5 w-5" fill="currentColor">
        <path d="M10 2a5 5 0 0 0-5 5v2.6c0 .5-.2 1-.5 1.4L3.3 12.6A1 1 0 0 0 4.1 14h11.8a1 1 0 0 0 .8-1.4L15.5 11c-.3-.4-.5-.9-.5-1.4V7a5 5 0 0 0-5-5Zm-2 13a2 2 0 0 0 4 0H8Z" />
      </svg>
      {count > 0 && (
        <span
          data-testid="alert-count"
          className={`rounded-full px-1.5 text-xs leading-5 font-semibold tabular-nums text-white ${critical ? 'bg-red-600 dark:bg-red-500 dark:text-slate-950' : 'bg-amber-700 dark:bg-amber-400 dark:text-slate-950'}`}
        >
          {count > 99 ? '99+' : count}
        </span>
      )}
    </Link>
  )
}
