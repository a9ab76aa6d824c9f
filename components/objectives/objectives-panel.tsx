'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { endpointQuery } from '@/components/data/endpoint-query'
import { Panel } from '@/components/ui/panel'
import { mirrorEndpoints } from '@/lib/api/endpoints'
import type { MirrorObjectivesResponse } from '@/lib/api/objectives'
import { describeRpo, describeRpoObjective } from '@/lib/failover/rpo'
import { formatDuration } from '@/lib/ui/format'

/** Compliance moves by the minute: a re-read twice a minute keeps the figures current. */
const REFRESH_MS = 30_000

type Count = NonNullable<MirrorObjectivesResponse['rpoCompliance']>['last24h']

/** 99.93 %, 100 %, 0 %: two decimals where they say something, never 100 % for a share short of it. */
export function formatShare(share: number): string {
  if (share >= 1) return '100 %'
  const percent = Math.floor(share * 10_000) / 100
  return `${percent.toFixed(percent >= 10 ? 2 : 1)} %`
}

function recorded(count: Count): number {
  return count.met + count.breached + count.unknown
}

const STATUS_LOOK = {
  met: { text: '✓ met', className: 'text-emerald-800 dark:text-emerald-300' },
  breached: { text: '✕ breached', className: 'text-red-800 dark:text-red-300' },
  unknown: { text: '? unknown (a source is silent: lower bounds)', className: 'text-amber-900 dark:text-amber-200' },
} as const

/** A day's cell: how much of it met the objective (grey: not recorded). */
function dayClass(count: Count): string {
  if (count.metShare === null) return 'bg-slate-200 dark:bg-slate-700'
  if (count.metShare >= 0.999) return 'bg-emerald-500 dark:bg-emerald-400'
  if (count.metShare >= 0.99) return 'bg-amber-400 dark:bg-amber-300'
  return 'bg-red-500 dark:bg-red-400'
}

function dayLabel(count: Count): string {
  const day = new Date(count.from).toISOString().slice(0, 10)
  if (count.metShare === null) return `${day}: no minute recorded`
  return `${day}: RPO met ${formatShare(count.metShare)} of ${recorded(count)} minutes${count.breached > 0 ? `, breached ${count.breached}` : ''}${count.unknown > 0 ? `, unknown ${count.unknown}` : ''}`
}

/**
 * A mirror's recovery objectives on its page (issue #34): the recovery point now against the RPO objective (met,
 * breached, or unknown while a source is silent: never shown as met), how much of the last 24 hours and 30 days it
 * was met, minute by minute, with one cell per day, and each failover's measured RTO against the RTO objective
 * (GET /mirrors/{m}/objectives). Renders nothing for a mirror that sets no objective.
 */
export function ObjectivesPanel({ mirror }: { mirror: string }) {
  const query = useQuery({ ...endpointQuery(mirrorEndpoints.mirrorObjectives, { params: { mirror } }), refetchInterval: REFRESH_MS })
  const data = query.data
  const objectives = data?.objectives
  if (data === undefined || objectives == null || (objectives.rpoRecords === undefined && objectives.rpoSeconds === undefined && objectives.rtoSeconds === undefined)) return null
  const rpoObjective = { ...(objectives.rpoRecords === undefined ? {} : { rpoRecords: objectives.rpoRecords }), ...(objectives.rpoSeconds === undefined ? {} : { rpoSeconds: objectives.rpoSeconds }) }
  const compliance = data.rpoCompliance
  const status = data.current.status
  const lastRto = data.rto[0]
  return (
    <Panel
      title="Recovery objectives"
      id="objectives"
      actions={
        <Link className="text-sm text-indigo-700 underline underline-offset-2 dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(mirror)}/settings`}>
          Change
        </Link>
      }
    >
      <div className="space-y-3 text-sm" data-testid="objectives">
        {status !== null && (
          <p data-rpo-status={status}>
            RPO {describeRpoObjective(rpoObjective)}: now {describeRpo(data.current)} at risk, <span className={`font-semibold ${STATUS_LOOK[status].className}`}>{STATUS_LOOK[status].text}</span>
          </p>
        )}
        {compliance !== null && (
          <div className="space-y-1.5">
            <p data-testid="rpo-compliance">
              {compliance.last30d.metShare === null ? (
                'RPO compliance: no minute recorded yet (each whole minute of mirroring is kept for 30 days)'
              ) : (
                <>
                  RPO met{' '}
                  {compliance.last24h.metShare !== null && (
                    <>
                      <span className="font-semibold tabular-nums">{formatShare(compliance.last24h.metShare)}</span> of the last 24 h{' · '}
                    </>
                  )}
                  <span className="font-semibold tabular-nums">{formatShare(compliance.last30d.metShare)}</span> of the last 30 days
                  <span className="text-slate-600 dark:text-slate-400">
                    {' '}
                    ({recorded(compliance.last30d).toLocaleString('en-US')} {recorded(compliance.last30d) === 1 ? 'minute' : 'minutes'} recorded{compliance.last30d.breached > 0 ? `, ${compliance.last30d.breached.toLocaleString('en-US')} breached` : ''}
                    {compliance.last30d.unknown > 0 ? `, ${compliance.last30d.unknown.toLocaleString('en-US')} unknown` : ''}
                    {compliance.last24h.metShare === null ? ', none in the last 24 h' : ''})
                  </span>
                </>
              )}
            </p>
            <ol className="flex gap-0.5" aria-label="RPO compliance per day, the last 30 days (UTC), oldest first">
              {compliance.days.map((day) => (
                <li key={day.from} className={`h-4 min-w-0 flex-1 rounded-sm ${dayClass(day)}`} title={dayLabel(day)} aria-label={dayLabel(day)} />
              ))}
            </ol>
            <p className="text-xs text-slate-600 dark:text-slate-400">Each cell is a UTC day: green 99.9 % or more of its minutes met, amber 99 % or more, red below; grey not recorded. A minute counts at its worst.</p>
          </div>
        )}
        {objectives.rtoSeconds !== undefined && (
          <p data-testid="rto-compliance">
            RTO {formatDuration(objectives.rtoSeconds * 1000)}:{' '}
            {lastRto === undefined ? (
              'no failover in the last 30 days'
            ) : (
              <>
                the last failover took <span className="font-semibold tabular-nums">{formatDuration(lastRto.rtoMs)}</span> to a writable destination{' '}
                <span className={`font-semibold ${lastRto.met ? STATUS_LOOK.met.className : STATUS_LOOK.breached.className}`}>{lastRto.met ? '✓ met' : '✕ breached'}</span>
                {data.rto.length > 1 && ` · ${data.rto.filter((r) => r.met).length} of ${data.rto.length} failovers in 30 days met it`}
              </>
            )}
          </p>
        )}
      </div>
    </Panel>
  )
}
