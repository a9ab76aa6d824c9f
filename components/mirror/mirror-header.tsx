'use client'

import Link from 'next/link'
import { useSyncExternalStore } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { RelativeTime } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import type { Mirror } from '@/lib/api/mirrors'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { formatCount, formatDuration, formatOffset } from '@/lib/ui/format'
import { STATES_BY_SEVERITY } from '@/lib/ui/state-style'
import { DrillCadence } from '@/components/drills/drill-cadence'
import { EmulationNotes } from './emulation-notes'
import { MirrorActions } from './mirror-actions'
import { ThrottleBadge } from './throttle-badge'

interface Figures {
  readonly counts: Partial<Record<MirrorPartitionState, number>>
  readonly maxOffsetLag: number | null
  readonly maxTimeLagMs: number | null
  readonly lastFetchAt: number | null
}

/** The header's figures from the live store once it holds the partitions; the mirror summary before that. */
function figuresOf(store: MirrorPartitionStore, mirror: Mirror): Figures {
  if (!store.isLoaded) return { counts: mirror.partitionsByState, maxOffsetLag: mirror.maxOffsetLag, maxTimeLagMs: mirror.maxTimeLagMs, lastFetchAt: null }
  const counts: Partial<Record<MirrorPartitionState, number>> = {}
  let maxOffsetLag: number | null = null
  let maxTimeLagMs: number | null = null
  let lastFetchAt: number | null = null
  for (const row of store.values()) {
    counts[row.state] = (counts[row.state] ?? 0) + 1
    if (row.lastFetchAt !== null && (lastFetchAt === null || row.lastFetchAt > lastFetchAt)) lastFetchAt = row.lastFetchAt
    if (row.state !== 'MIRRORING') continue
    if (row.offsetLag !== null) maxOffsetLag = Math.max(maxOffsetLag ?? 0, row.offsetLag)
    if (row.timeLagMs !== null) maxTimeLagMs = Math.max(maxTimeLagMs ?? 0, row.timeLagMs)
  }
  return { counts, maxOffsetLag, maxTimeLagMs, lastFetchAt }
}

function ClusterLink({ name, role }: { name: string; role: string }) {
  return (
    <Link
      href={`/clusters/${encodeURIComponent(name)}`}
      className="rounded font-mono font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300"
      title={`${role} cluster`}
    >
      {name}
    </Link>
  )
}

const TOPICS_SHOWN = 6

export function MirrorHeader({ mirror, store }: { mirror: Mirror; store: MirrorPartitionStore }) {
  // Re-read on every store change (batched per frame): a pass over 10,000 rows is well under a millisecond.
  useSyncExternalStore(store.subscribe, store.getVersion, store.getVersion)
  const figures = figuresOf(store, mirror)
  const states = STATES_BY_SEVERITY.filter((state) => (figures.counts[state] ?? 0) > 0)
  const total = Object.values(figures.counts).reduce((sum, count) => sum + (count ?? 0), 0)
  return (
    <header className="flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
      <div className="min-w-0 flex-1">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">Mirror</p>
        <h1 className="break-words text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">{mirror.name}</h1>
        <p className="mt-1 flex flex-wrap items-center gap-x-2 text-sm text-slate-700 dark:text-slate-300">
          <ClusterLink name={mirror.sourceCluster} role="Source" />
          <span aria-hidden>→</span>
          <span className="sr-only">mirrored to</span>
          <ClusterLink name={mirror.destinationCluster} role="Destination" />
        </p>
        <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">
          {mirror.topics.length} {mirror.topics.length === 1 ? 'topic' : 'topics'}
          {mirror.topics.length > 0 && ': '}
          <span className="break-words font-mono text-xs" title={mirror.topics.join(', ')}>
            {mirror.topics.slice(0, TOPICS_SHOWN).join(', ')}
            {mirror.topics.length > TOPICS_SHOWN && ` +${mirror.topics.length - TOPICS_SHOWN} more`}
          </span>
        </p>
        <div className="mt-3 flex flex-wrap items-center gap-1.5" aria-label="Partitions by state" role="group">
          <span className="mr-1 text-sm text-slate-600 dark:text-slate-300">{total.toLocaleString('en-US')} {total === 1 ? 'partition' : 'partitions'}</span>
          {states.map((state) => (
            <StateBadge key={state} state={state} count={figures.counts[state]} />
          ))}
          <ThrottleBadge mirror={mirror} />
        </div>
        <dl className="mt-3 grid grid-cols-3 gap-x-6 gap-y-1 text-sm sm:flex sm:flex-wrap">
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Max offset lag</dt>
            <dd className="font-semibold tabular-nums text-slate-900 dark:text-white" title={figures.maxOffsetLag === null ? undefined : `${formatOffset(figures.maxOffsetLag)} records`}>
              {figures.maxOffsetLag === null ? '–' : `${formatCount(figures.maxOffsetLag)} records`}
            </dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Max time lag</dt>
            <dd className="font-semibold tabular-nums text-slate-900 dark:text-white">{figures.maxTimeLagMs === null ? '–' : formatDuration(figures.maxTimeLagMs)}</dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Last fetch</dt>
            <dd className="font-semibold text-slate-900 dark:text-white">{figures.lastFetchAt === null ? '–' : <RelativeTime at={figures.lastFetchAt} />}</dd>
          </div>
        </dl>
        {mirror.drills !== undefined && (
          <p className="mt-2">
            <DrillCadence drills={mirror.drills} />
          </p>
        )}
        <EmulationNotes emulation={mirror.emulation} scope="mirror" />
      </div>
      <MirrorActions mirror={mirror} store={store} failed={figures.counts.FAILED ?? 0} />
    </header>
  )
}

export function MirrorHeaderSkeleton() {
  return (
    <div aria-hidden className="flex flex-col gap-2">
      <div className="h-3 w-12 motion-safe:animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
      <div className="h-7 w-56 motion-safe:animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
      <div className="h-4 w-80 max-w-full motion-safe:animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
      <div className="mt-2 flex gap-1.5">
        {[0, 1, 2].map((index) => (
          <div key={index} className="h-5 w-24 motion-safe:animate-pulse rounded-full bg-slate-200 dark:bg-slate-800" />
        ))}
      </div>
    </div>
  )
}
