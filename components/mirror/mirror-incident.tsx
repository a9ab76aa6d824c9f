'use client'

import Link from 'next/link'
import { useState } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { useCanOperate } from '@/components/data/session-context'
import { IncidentBanner } from '@/components/incident/incident-banner'
import { buttonClass } from '@/components/ui/button-class'
import type { Mirror } from '@/lib/api/mirrors'
import type { MirrorSnapshot } from '@/lib/ui/mirror-snapshot'
import { TopicActionDialog, type ActionResult } from './topic-action-dialog'

/**
 * The mirror page's incident band, from the page's snapshot (its FAILED partitions grouped by cause), with
 * the page's one Recover (the recover dialog, for operators: the header leaves its own out while this shows, so
 * the page has one primary action) and Fail over… (the wizard). Sticky on wide screens, so the cause and the
 * actions stay in view while the operator reads the table; on a phone it would cover the screen. Renders nothing
 * while nothing is FAILED.
 */
export function MirrorIncident({ mirror, store, snapshot }: { mirror: Mirror; store: MirrorPartitionStore; snapshot: MirrorSnapshot | null }) {
  const canOperate = useCanOperate({ mirror: mirror.name })
  const [recovering, setRecovering] = useState(false)
  const [result, setResult] = useState<ActionResult | null>(null)
  const incident = snapshot?.incident ?? null
  if (incident === null) {
    return result === null ? null : (
      <p role="status" className="rounded-md bg-emerald-50 px-3 py-1.5 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">
        <span aria-hidden>✓ </span>
        {result.text}
      </p>
    )
  }
  const stopped = (snapshot?.counts.STOPPED ?? 0) + (snapshot?.counts.STOPPING ?? 0) === snapshot?.partitions
  return (
    <div className="flex flex-col gap-3 lg:sticky lg:top-2 lg:z-30">
      <IncidentBanner
        title={
          <>
            {incident.failed.toLocaleString('en-US')} of {snapshot?.partitions.toLocaleString('en-US')} partitions FAILED
            {' '}
            <span className="text-sm font-normal">{incident.retrying ? '— the engine retries by itself' : '— an operator must act'}</span>
          </>
        }
        causes={incident.groups}
        clusters={{ source: mirror.sourceCluster, destination: mirror.destinationCluster }}
        actions={
          canOperate ? (
            <>
              <button type="button" className={buttonClass('danger', 'sm')} data-primary onClick={() => setRecovering(true)}>
                <span aria-hidden>↻</span> Recover {incident.failed.toLocaleString('en-US')} failed now
              </button>
              {!stopped && (
                <Link href={`/mirrors/${encodeURIComponent(mirror.name)}/failover`} className={buttonClass('secondary', 'sm')}>
                  Fail over…
                </Link>
              )}
            </>
          ) : undefined
        }
      />
      {result !== null && (
        <p role="status" className="rounded-md bg-emerald-50 px-3 py-1.5 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">
          <span aria-hidden>✓ </span>
          {result.text}
        </p>
      )}
      {recovering && (
        <TopicActionDialog
          mirror={mirror.name}
          action="recover"
          store={store}
          topics={mirror.topics}
          onClose={() => setRecovering(false)}
          onDone={(done) => {
            setRecovering(false)
            setResult(done)
          }}
        />
      )}
    </div>
  )
}
