'use client'

import Link from 'next/link'
import type { ReactNode } from 'react'
import { RelativeTime, useNow } from '@/components/ui/relative-time'
import { clockTime, formatDuration, formatInteger } from '@/lib/ui/format'
import { FAILURE_CAUSES, type FailureCause } from '@/lib/overview/incident'

/** One cause of an incident, as lib/overview/incident.ts groups FAILED partitions (and GET /attention answers them). */
export interface IncidentCause {
  readonly cause: FailureCause
  readonly partitions: number
  readonly since: number
  readonly nextRetryAt: number | null
  readonly retryAttempt: number
  readonly error: string | null
}

/** "in 4 s", "due now" (the engine retries on its next turn), or "not retried" when the failure waits for an operator. */
export function NextRetry({ at, attempt = 0 }: { at: number | null; attempt?: number }) {
  const now = useNow()
  if (at === null) return <span>{attempt < 0 ? 'not retried automatically' : 'no retry scheduled'}</span>
  const wait = at - now
  return (
    <span title={`${new Date(at).toISOString()}${attempt > 0 ? `, after ${attempt} failed attempts` : ''}`}>
      next retry {now === 0 ? `at ${clockTime(at)} UTC` : wait <= 1_000 ? 'due now' : `in ${formatDuration(Math.ceil(wait / 1000) * 1000)}`}
      {attempt > 0 && ` (attempt ${attempt + 1})`}
    </span>
  )
}

/**
 * The banner above everything on the mirror page and the overview while partitions are FAILED: what broke
 * (the cause, and which cluster), since when (clock time and how long), how many partitions, when the engine
 * retries, and the actions (Recover now, Fail over…). One line per cause, largest first. `role="alert"` only
 * where the banner appears after the page did (a screen reader hears a new incident, not every page load).
 */
export function IncidentBanner({
  title,
  causes,
  clusters,
  actions,
  mirrorHref,
}: {
  title: ReactNode
  causes: readonly IncidentCause[]
  /** The mirror's clusters, so "source unreachable" names which one. */
  clusters?: { readonly source: string; readonly destination: string }
  actions?: ReactNode
  /** Shown on the overview: where the partitions are listed. */
  mirrorHref?: string
}) {
  return (
    <section
      aria-label="Incident"
      data-testid="incident-banner"
      className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-950 shadow-sm dark:border-red-800 dark:bg-red-950 dark:text-red-50"
    >
      <div className="flex flex-col gap-3 lg:flex-row lg:items-start lg:justify-between">
        <div className="min-w-0">
          <h2 className="flex items-start gap-2 text-base font-semibold">
            <span aria-hidden className="grid h-6 w-6 shrink-0 place-items-center rounded-full bg-red-600 text-xs text-white dark:bg-red-500">
              ✕
            </span>
            <span className="min-w-0">{title}</span>
          </h2>
          <ul className="mt-1.5 space-y-1.5">
            {causes.map((cause) => (
              <li key={cause.cause} data-cause={cause.cause}>
                <p>
                  <span className="font-semibold">{formatInteger(cause.partitions)} FAILED</span>
                  {' · '}
                  <span className="font-semibold" data-testid="incident-cause">
                    {causeLabel(cause.cause, clusters)}
                  </span>
                  {' since '}
                  <time dateTime={new Date(cause.since).toISOString()} className="tabular-nums">
                    {clockTime(cause.since)} UTC
                  </time>{' '}
                  (<RelativeTime at={cause.since} />){' · '}
                  <NextRetry at={cause.nextRetryAt} attempt={cause.retryAttempt} />
                </p>
                <p className="text-xs text-red-900 dark:text-red-200">{FAILURE_CAUSES[cause.cause].detail}</p>
                {cause.error !== null && <p className="mt-0.5 font-mono text-xs break-words text-red-900 dark:text-red-200">{cause.error}</p>}
              </li>
            ))}
          </ul>
          {mirrorHref !== undefined && (
            <p className="mt-1.5">
              <Link prefetch={false} href={mirrorHref} className="font-medium underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-indigo-500">
                Open the mirror&apos;s partitions
              </Link>
            </p>
          )}
        </div>
        {actions !== undefined && <div className="flex shrink-0 flex-wrap gap-2">{actions}</div>}
      </div>
    </section>
  )
}

function causeLabel(cause: FailureCause, clusters: { readonly source: string; readonly destination: string } | undefined): string {
  const label = FAILURE_CAUSES[cause].label
  if (clusters === undefined) return label
  if (cause === 'sourceUnreachable') return `${label} (${clusters.source})`
  if (cause === 'destinationUnreachable') return `${label} (${clusters.destination})`
  return label
}
