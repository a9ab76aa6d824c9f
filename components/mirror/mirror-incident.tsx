'use client'

import Link from 'next/link'
import { useEffect, useRef, useState } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { useCanOperate } from '@/components/data/session-context'
import { IncidentBanner } from '@/components/incident/incident-banner'
import { buttonClass } from '@/components/ui/button-class'
import type { Mirror } from '@/lib/api/mirrors'
import { FAILURE_CAUSES } from '@/lib/overview/incident'
import type { MirrorSnapshot } from '@/lib/ui/mirror-snapshot'
import { TopicActionDialog, type ActionResult } from './topic-action-dialog'
import { formatInteger } from '@/lib/ui/format'

/**
 * The mirror page's incident band, from the page's snapshot (its FAILED partitions grouped by cause), with
 * the page's one Recover (the recover dialog, for operators: the header leaves its own out while this shows, so
 * the page has one primary action) and Fail over… (the wizard). Sticky on wide screens, so the cause and the
 * actions stay in view while the operator reads the table; on a phone it would cover the screen, so there a one-line
 * band (counts, cause, Recover) takes its place at the top once it is scrolled away. Renders nothing while nothing
 * is FAILED.
 */
export function MirrorIncident({ mirror, store, snapshot }: { mirror: Mirror; store: MirrorPartitionStore; snapshot: MirrorSnapshot | null }) {
  const canOperate = useCanOperate({ mirror: mirror.name })
  const [recovering, setRecovering] = useState(false)
  const [result, setResult] = useState<ActionResult | null>(null)
  const [bannerBox, bannerInView] = useInView(snapshot?.incident != null)
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
  const [cause] = incident.groups
  return (
    <>
      <div ref={bannerBox} className="flex flex-col gap-3 lg:sticky lg:top-2 lg:z-30">
        <IncidentBanner
          title={
            <>
              {formatInteger(incident.failed)} of {(snapshot === null ? '' : formatInteger(snapshot.partitions))} partitions FAILED
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
                  <span aria-hidden>↻</span> Recover {formatInteger(incident.failed)} failed now
                </button>
                {!stopped && (
                  <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror.name)}/failover`} className={buttonClass('secondary', 'sm')}>
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
      {/* Below lg: a one-line band that stays at the top while the full banner is scrolled away (the banner itself
          would cover half a phone's screen). It takes no room in the page (a zero-height sticky box, the gap
          before it cancelled), so nothing moves when it appears. */}
      <div className="sticky top-0 z-30 -mt-6 h-0 lg:hidden" data-testid="incident-strip-anchor">
        <div
          data-testid="incident-strip"
          hidden={bannerInView}
          className="border-b border-red-300 bg-red-50/95 px-3 py-1.5 text-sm text-red-950 shadow-md backdrop-blur dark:border-red-800 dark:bg-red-950/95 dark:text-red-50"
        >
          <div className="flex items-center gap-2">
            <span aria-hidden className="grid h-5 w-5 shrink-0 place-items-center rounded-full bg-red-600 text-[10px] text-white dark:bg-red-500">
              ✕
            </span>
            <p className="min-w-0 flex-1 truncate">
              <span className="font-semibold">
                {formatInteger(incident.failed)}/{(snapshot === null ? '' : formatInteger(snapshot.partitions))} FAILED
              </span>
              {cause !== undefined && <> · {FAILURE_CAUSES[cause.cause].label}</>}
            </p>
            {canOperate && (
              <button type="button" className={`${buttonClass('danger', 'sm')} shrink-0`} onClick={() => setRecovering(true)}>
                <span aria-hidden>↻</span> Recover
              </button>
            )}
          </div>
        </div>
      </div>
    </>
  )
}

/** Whether the element is on screen (true until measured, so the strip never flashes on first paint). */
function useInView(active: boolean): [React.RefObject<HTMLDivElement | null>, boolean] {
  const box = useRef<HTMLDivElement>(null)
  const [inView, setInView] = useState(true)
  useEffect(() => {
    const element = box.current
    if (element === null || typeof IntersectionObserver === 'undefined') return
    const observer = new IntersectionObserver(([entry]) => setInView(entry?.isIntersecting ?? true))
    observer.observe(element)
    return () => observer.disconnect()
  }, [active])
  return [box, inView]
}
