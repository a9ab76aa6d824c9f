'use client'

import Link from 'next/link'
import { useCanOperate } from '@/components/data/session-context'
import { IncidentBanner } from '@/components/incident/incident-banner'
import { buttonClass } from '@/components/ui/button-class'
import type { AttentionResponse } from '@/lib/api/attention'
import type { MirrorSummary } from '@/lib/api/mirrors'
import { formatInteger } from '@/lib/ui/format'

/**
 * The overview's incident banners, above everything: one per mirror with FAILED partitions (GET /attention's
 * groups, by cause), with Recover now (on the mirror page, where the partitions to recover are listed) and
 * Fail over… for operators. Nothing while no partition is FAILED.
 */
export function OverviewIncidents({ attention, mirrors }: { attention: AttentionResponse | undefined; mirrors: readonly MirrorSummary[] | undefined }) {
  const canOperate = useCanOperate()
  const failed = (attention?.groups ?? []).filter((group) => group.kind === 'failed' && group.cause !== null)
  if (failed.length === 0) return null
  const byMirror = new Map<string, typeof failed>()
  for (const group of failed) byMirror.set(group.mirror, [...(byMirror.get(group.mirror) ?? []), group])
  return (
    <div className="space-y-3">
      {[...byMirror.entries()].map(([mirror, groups]) => {
        const summary = mirrors?.find((entry) => entry.name === mirror)
        const total = summary === undefined ? null : Object.values(summary.partitionsByState).reduce((sum, count) => sum + (count ?? 0), 0)
        const count = groups.reduce((sum, group) => sum + group.partitions, 0)
        const href = `/mirrors/${encodeURIComponent(mirror)}`
        return (
          <IncidentBanner
            key={mirror}
            title={
              <>
                <span className="font-mono">{mirror}</span>: {formatInteger(count)}
                {total === null ? '' : ` of ${formatInteger(total)}`} partitions FAILED
              </>
            }
            causes={groups.map((group) => ({ ...group, cause: group.cause ?? 'other' }))}
            clusters={summary === undefined ? undefined : { source: summary.sourceCluster, destination: summary.destinationCluster }}
            actions={
              <>
                <Link prefetch={false} href={href} className={buttonClass(canOperate ? 'danger' : 'secondary', 'sm')}>
                  {canOperate ? 'Recover now…' : 'Open the mirror'}
                </Link>
                {canOperate && (
                  <Link prefetch={false} href={`${href}/failover`} className={buttonClass('secondary', 'sm')}>
                    Fail over…
                  </Link>
                )}
              </>
            }
          />
        )
      })}
    </div>
  )
}
