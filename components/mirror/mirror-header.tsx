'use client'

import Link from 'next/link'
import type { ReactNode } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { Breadcrumbs } from '@/components/ui/breadcrumbs'
import { RelativeTime } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import type { Mirror } from '@/lib/api/mirrors'
import { clockTime, formatInteger, formatOffset } from '@/lib/ui/format'
import { asOfText, countText, durationText } from '@/lib/ui/lag-text'
import type { MirrorSnapshot } from '@/lib/ui/mirror-snapshot'
import { STATES_BY_SEVERITY } from '@/lib/ui/state-style'
import { DrillCadence } from '@/components/drills/drill-cadence'
import { EmulationNotes } from './emulation-notes'
import { MirrorActions } from './mirror-actions'
import { ThrottleBadge } from './throttle-badge'

/** The header's figures: the page's snapshot once the store holds the partitions; the mirror summary before that. */
function figuresOf(snapshot: MirrorSnapshot | null, mirror: Mirror) {
  if (snapshot === null) {
    const known = mirror.lagKnown ?? true
    return {
      counts: mirror.partitionsByState,
      total: { value: mirror.totalOffsetLag, known },
      max: { value: mirror.maxOffsetLag, known },
      time: { value: mirror.maxTimeLagMs, known },
      asOf: mirror.lagAsOf ?? null,
      atRisk: null,
      lastFetchAt: null,
      at: null,
      hasLag: mirror.totalOffsetLag !== null,
    }
  }
  const { lag } = snapshot
  return {
    counts: snapshot.counts,
    total: { value: lag.totalOffsetLag, known: lag.known },
    max: { value: lag.maxOffsetLag, known: lag.known },
    time: { value: lag.maxTimeLagMs, known: lag.known },
    asOf: lag.asOf,
    atRisk: snapshot.atRisk,
    lastFetchAt: snapshot.lastFetchAt,
    at: snapshot.at,
    hasLag: lag.counted > 0,
  }
}

function ClusterLink({ name, role }: { name: string; role: string }) {
  return (
    <Link prefetch={false}
      href={`/clusters/${encodeURIComponent(name)}`}
      className="rounded font-mono font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300"
      title={`${role} cluster`}
    >
      {name}
    </Link>
  )
}

const TOPICS_SHOWN = 6

export function MirrorHeader({ mirror, store, snapshot }: { mirror: Mirror; store: MirrorPartitionStore; snapshot: MirrorSnapshot | null }) {
  const figures = figuresOf(snapshot, mirror)
  const states = STATES_BY_SEVERITY.filter((state) => (figures.counts[state] ?? 0) > 0)
  const total = Object.values(figures.counts).reduce((sum, count) => sum + (count ?? 0), 0)
  const stopped = total > 0 && (figures.counts.STOPPED ?? 0) + (figures.counts.STOPPING ?? 0) === total
  const lowerBound = !figures.total.known && figures.total.value !== null
  const asOf = lowerBound ? asOfText(false, figures.asOf) : ''
  const noLag = stopped ? 'none: failed over' : figures.hasLag ? 'unknown' : '–'
  return (
    <header className="flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
      <div className="min-w-0 flex-1">
        <Breadcrumbs trail={[{ label: 'Overview', href: '/' }, { label: 'Mirrors', href: '/mirrors' }, { label: mirror.name }]} />
        <p className="mt-2 text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">Mirror</p>
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
        {/* Several instances share the work: which one runs this mirror (a single instance runs every mirror, so no line). */}
        {mirror.owner != null && (
          <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400" data-testid="mirror-owner">
            Runs on{' '}
            <Link prefetch={false} href="/instances" className="rounded font-mono break-all text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
              {mirror.owner}
            </Link>
          </p>
        )}
        <div className="mt-3 flex flex-wrap items-center gap-1.5" aria-label="Partitions by state" role="group">
          <span className="mr-1 text-sm whitespace-nowrap text-slate-600 dark:text-slate-300">{formatInteger(total)} {total === 1 ? 'partition' : 'partitions'}</span>
          {states.map((state) => (
            <StateBadge key={state} state={state} count={figures.counts[state]} />
          ))}
          <ThrottleBadge mirror={mirror} />
        </div>
        <dl className="mt-3 grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:flex sm:flex-wrap" data-testid="mirror-figures" data-lower-bound={lowerBound || undefined}>
          <HeaderFigure
            label="Offset lag"
            title={figures.total.value === null ? undefined : `${lowerBound ? 'At least ' : ''}${formatOffset(figures.total.value)} records behind in all${figures.max.value === null ? '' : `; the worst partition ${lowerBound ? 'at least ' : ''}${formatOffset(figures.max.value)}`}${asOf === '' ? '' : ` (${asOf})`}`}
            detail={figures.max.value === null ? undefined : `max ${countText(figures.max)} a partition`}
          >
            {figures.total.value === null ? noLag : `${countText(figures.total)} ${figures.total.value === 1 ? 'record' : 'records'}`}
          </HeaderFigure>
          <HeaderFigure label="Max time lag" detail={lowerBound ? 'growing' : undefined}>
            {figures.time.value === null ? noLag : durationText(figures.time)}
          </HeaderFigure>
          {/* Before the partitions are in, the figure's place is kept (it arrived later and pushed the page down: Lighthouse's layout shift). */}
          {figures.atRisk === null && figures.at === null && (
            <HeaderFigure label="At risk if failed over now" detail={'\u00a0'} testId="mirror-at-risk">
              <span className="text-slate-500 dark:text-slate-400">…</span>
            </HeaderFigure>
          )}
          {figures.atRisk !== null && (
            <HeaderFigure
              label="At risk if failed over now"
              title={figures.atRisk.records === null ? 'unknown: a partition has never had a fetch answered' : `${figures.atRisk.known ? '' : 'At least '}${formatOffset(figures.atRisk.records)} records on ${mirror.sourceCluster} not on ${mirror.destinationCluster}, the same figure the failover wizard shows`}
              detail={figures.atRisk.records === null || figures.atRisk.records === 0 || figures.atRisk.timeMs === null ? undefined : `oldest ${durationText({ value: figures.atRisk.timeMs, known: figures.atRisk.known })}`}
              testId="mirror-at-risk"
            >
              {stopped ? 'nothing: failed over' : figures.atRisk.records === null ? 'unknown' : `${countText({ value: figures.atRisk.records, known: figures.atRisk.known })} ${figures.atRisk.records === 1 ? 'record' : 'records'}`}
            </HeaderFigure>
          )}
          <HeaderFigure label="Last fetch" detail={figures.lastFetchAt === null ? (figures.at === null ? '\u00a0' : undefined) : `at ${clockTime(figures.lastFetchAt)} UTC`}>
            {figures.lastFetchAt === null ? '–' : <RelativeTime at={figures.lastFetchAt} />}
          </HeaderFigure>
        </dl>
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400" data-testid="mirror-as-of">
          {figures.at === null ? 'Figures from the mirror summary; the partitions are loading…' : <>Figures as of <span className="tabular-nums">{clockTime(figures.at)} UTC</span></>}
          {lowerBound && (
            <span className="text-red-800 dark:text-red-300">
              {' '}
              · ≥: lower bounds, the source was last read {asOf === '' ? 'a while ago' : asOf.replace('as of ', 'at ')}
            </span>
          )}
        </p>
        {mirror.drills !== undefined && (
          <p className="mt-2">
            <DrillCadence drills={mirror.drills} />
          </p>
        )}
        <EmulationNotes emulation={mirror.emulation} scope="mirror" />
      </div>
      <MirrorActions mirror={mirror} store={store} counts={figures.counts} recoverInBand={snapshot?.incident != null} />
    </header>
  )
}

function HeaderFigure({ label, title, detail, testId, children }: { label: string; title?: string; detail?: string; testId?: string; children: ReactNode }) {
  return (
    <div title={title} data-testid={testId} className="min-w-0">
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="font-semibold whitespace-nowrap tabular-nums text-slate-900 dark:text-white">{children}</dd>
      {detail !== undefined && <dd className="text-xs whitespace-nowrap text-slate-500 tabular-nums dark:text-slate-400">{detail}</dd>}
    </div>
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
