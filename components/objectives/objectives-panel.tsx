'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { endpointQuery } from '@/components/data/endpoint-query'
import { Panel } from '@/components/ui/panel'
import { StatusBadge } from '@/components/ui/status-badge'
import { mirrorEndpoints } from '@/lib/api/routes'
import type { MirrorObjectivesResponse } from '@/lib/api/objectives'
import { describeRpo, describeRpoObjective } from '@/lib/failover/rpo'
import { complianceDayLabel, complianceDayTone, type ComplianceDayTone } from '@/lib/ui/compliance-day'
import { formatDuration, formatInteger } from '@/lib/ui/format'
import { RPO_STATUS_STYLE } from '@/lib/ui/status-style'

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

/** An RTO measured against its objective (the RPO's status is the one badge of RPO_STATUS_STYLE). */
const RTO_LOOK = {
  met: { text: '✓ met', className: 'text-emerald-800 dark:text-emerald-300' },
  breached: { text: '✕ breached', className: 'text-red-800 dark:text-red-300' },
} as const

/** A day's cell by its tone (lib/ui/compliance-day.ts). */
const DAY_CLASS = {
  notRecorded: 'bg-slate-200 dark:bg-slate-700',
  met: 'bg-emerald-500 dark:bg-emerald-400',
  short: 'bg-amber-400 dark:bg-amber-300',
  breached: 'bg-red-500 dark:bg-red-400',
} as const satisfies Record<ComplianceDayTone, string>

/**
 * A mirror's recovery objectives on its page (issue #34): the recovery point now against the RPO objective (met,
 * breached, or unknown while a source is silent: never shown as met), how much of the last 24 hours and 30 days it
 * was met, minute by minute, with one cell per day, and each failover's and drill's measured RTO against the RTO objective
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
  const lastDrill = data.drills[0]
  return (
    <Panel
      title="Recovery objectives"
      id="objectives"
      actions={
        <Link prefetch={false} className="text-sm text-indigo-700 underline underline-offset-2 dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(mirror)}/settings`}>
          Change
        </Link>
      }
    >
      <div className="space-y-3 text-sm" data-testid="objectives">
        {status !== null && (
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1" data-rpo-status={status}>
            <StatusBadge look={RPO_STATUS_STYLE[status]} size="md" />{' '}
            <span>
              objective {describeRpoObjective(rpoObjective)}: now {describeRpo(data.current)} at risk{status === 'unknown' ? ' (a source is silent: lower bounds)' : ''}
            </span>
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
                    ({formatInteger(recorded(compliance.last30d))} {recorded(compliance.last30d) === 1 ? 'minute' : 'minutes'} recorded{compliance.last30d.breached > 0 ? `, ${formatInteger(compliance.last30d.breached)} breached` : ''}
                    {compliance.last30d.unknown > 0 ? `, ${formatInteger(compliance.last30d.unknown)} unknown` : ''}
                    {compliance.last24h.metShare === null ? ', none in the last 24 h' : ''})
                  </span>
                </>
              )}
            </p>
            <ol className="flex gap-0.5" aria-label="RPO compliance per day, the last 30 days (UTC), oldest first">
              {compliance.days.map((day) => (
                <li key={day.from} className={`h-4 min-w-0 flex-1 rounded-sm ${DAY_CLASS[complianceDayTone(day)]}`} title={complianceDayLabel(day, formatShare)} aria-label={complianceDayLabel(day, formatShare)} />
              ))}
            </ol>
            <p className="text-xs text-slate-600 dark:text-slate-400">Each cell is a UTC day: green 99.9 % or more of its minutes met, amber 99 % or more (or short of it only by minutes a silent source left unknown), red below; grey not recorded. A minute counts at its worst.</p>
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
                <span className={`font-semibold ${lastRto.met ? RTO_LOOK.met.className : RTO_LOOK.breached.className}`}>{lastRto.met ? '✓ met' : '✕ breached'}</span>
                {data.rto.length > 1 && ` · ${data.rto.filter((r) => r.met).length} of ${data.rto.length} failovers in 30 days met it`}
              </>
            )}
          </p>
        )}
        {objectives.rtoSeconds !== undefined && (
          <p data-testid="rto-drills">
            Drills:{' '}
            {lastDrill === undefined ? (
              <>
                none succeeded in the last 30 days (a drill rehearses the failover on a copy and measures its RTO;{' '}
                <Link prefetch={false} className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(mirror)}?tab=drills`}>
                  run one
                </Link>
                )
              </>
            ) : (
              <>
                <Link prefetch={false} className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300" href={`/drills/${encodeURIComponent(lastDrill.drill)}`}>
                  the last drill
                </Link>{' '}
                took <span className="font-semibold tabular-nums">{formatDuration(lastDrill.rtoMs)}</span> to a writable copy{' '}
                <span className={`font-semibold ${lastDrill.met ? RTO_LOOK.met.className : RTO_LOOK.breached.className}`}>{lastDrill.met ? '✓ met' : '✕ breached'}</span>
                {data.drills.length > 1 && ` · ${data.drills.filter((drill) => drill.met).length} of ${data.drills.length} drills in 30 days met it`}
              </>
            )}
          </p>
        )}
      </div>
    </Panel>
  )
}
