'use client'

import dynamic from 'next/dynamic'
import { memo, useDeferredValue, useMemo } from 'react'
import { useMirror } from '@/components/data/use-mirrors'
import type { PartitionPreview } from '@/components/data/mirror-partition-store'
import { useMirrorPartitions } from '@/components/data/use-mirror-partitions'
import { ObjectivesPanel } from '@/components/objectives/objectives-panel'
import { SourceFencePanel } from '@/components/failover/source-fence-panel'
import { SplitBrainNotice } from '@/components/failover/split-brain-notice'
import { LagChart } from '@/components/lag/lag-chart'
import { PartitionTable } from '@/components/partitions/partition-table'
import { ErrorPanel } from '@/components/ui/error-panel'
import { NotFoundPanel } from '@/components/ui/not-found-panel'
import { isApiError } from '@/lib/api/errors'
import { MirrorHeader, MirrorHeaderSkeleton } from './mirror-header'
import { MirrorIncident } from './mirror-incident'
import { MirrorTabs, useMirrorTab } from './mirror-tabs'
import { MirrorThroughput } from './mirror-throughput'
import { MirrorTimeline } from './mirror-timeline'
import { useMirrorSnapshot } from './use-mirror-snapshot'

// The drills and verifications tabs in chunks of their own, loaded when opened: the partitions tab, which a
// mirror page opens on, had evaluated their code too while it loaded (Lighthouse's total blocking time).
const DrillsTab = dynamic(() => import('@/components/drills/drills-tab').then((module) => module.DrillsTab))
const VerificationsTab = dynamic(() => import('@/components/verifications/verifications-tab').then((module) => module.VerificationsTab))

// The figures' components re-render only when what they show changed (the mirror's answer, read every 2 s, is
// deferred below: its re-render is a transition).
const Incident = memo(MirrorIncident)
const Header = memo(MirrorHeader)
const Throughput = memo(MirrorThroughput)
const Chart = memo(LagChart)

/**
 * The mirror page: header with actions, then its sections (`?tab=`): the lag chart and partition table, fed by
 * one live partition store; the drills; the verifications. `firstRows`: the table's first screen, rendered with
 * the page's HTML while the whole list loads. `phone`: the server's guess at the screen (lib/ui/phone-guess.ts), so
 * the table's first render is already the layout a phone shows.
 */
export function MirrorPageView({ mirror, firstRows = null, phone = false }: { mirror: string; firstRows?: PartitionPreview | null; phone?: boolean }) {
  const summary = useMirror(mirror)
  const partitions = useMirrorPartitions(mirror, firstRows)
  const tab = useMirrorTab()
  // One reading of the partitions for every figure on the page (header, banner, chart's trend).
  const snapshot = useMirrorSnapshot(partitions.store)
  // The snapshot moves every second (lower bounds grow with the clock) and on every live change: only what shows
  // its figures re-renders then. The rest stays the same elements, which React skips; the whole page, table rows
  // included, had re-rendered once a second (long tasks on a phone's CPU: Lighthouse's total blocking time).
  // The mirror's answer as a transition: TanStack Query tells its observers synchronously, and the header, banner,
  // throughput and chart had re-rendered in one blocking task on every read.
  const data = useDeferredValue(summary.data)
  const stoppedCount = data?.partitionsByState.STOPPED ?? 0
  const drillsRunning = Boolean(data?.drills?.running)
  // The mirror's answer is read again every 2 s (its throughput): only the tab that shows it follows it, so the
  // timeline, objectives and tabs are not rendered again on every read.
  const tabMirror = tab === 'partitions' ? undefined : data
  const { store, status, error, isFetching, refetch } = partitions
  const sections = useMemo(
    () => (
      <>
        {/* After a failover: records still written to the old source (renders nothing before one). */}
        <SplitBrainNotice mirror={mirror} showQuiet />
        {/* A planned switchover's fence on the old source (only a failed-over mirror can hold one). */}
        {stoppedCount > 0 && <SourceFencePanel mirror={mirror} />}
        {/* When it broke, the retries as one row, when it healed, what operators did (nothing before a first failure). */}
        <MirrorTimeline mirror={mirror} />
        <ObjectivesPanel mirror={mirror} />
        <MirrorTabs current={tab} badges={drillsRunning ? { drills: 'running' } : {}} />
        {tab === 'drills' && tabMirror !== undefined && <DrillsTab mirror={tabMirror} />}
        {tab === 'verifications' && tabMirror !== undefined && <VerificationsTab mirror={tabMirror} />}
      </>
    ),
    [mirror, stoppedCount, tab, drillsRunning, tabMirror],
  )
  const table = useMemo(
    () => <PartitionTable mirror={mirror} store={store} status={status} error={error} isFetching={isFetching} onRetry={() => void refetch()} phone={phone} />,
    [mirror, store, status, error, isFetching, refetch, phone],
  )
  if (summary.isError && data === undefined) {
    // Deleted while the page was open (the server's own check answered the first render).
    if (isApiError(summary.error, 'NOT_FOUND')) return <NotFoundPanel what={`No mirror named “${mirror}”`} detail="It may have been deleted." />
    return <ErrorPanel error={summary.error} title={`Could not load mirror ${mirror}`} onRetry={() => void summary.refetch()} />
  }
  return (
    <div className="flex flex-col gap-6">
      {/* The incident first: what broke, since when, and what to do. */}
      {data !== undefined && <Incident mirror={data} store={store} snapshot={snapshot} />}
      {data === undefined ? <MirrorHeaderSkeleton /> : <Header mirror={data} store={store} snapshot={snapshot} />}
      {data !== undefined && <Throughput mirror={data} snapshot={snapshot} />}
      {sections}
      {tab === 'partitions' && (
        <>
          {/* The table's rows come first; the lag history (megabytes for 10,000 partitions) is asked for once they are in. */}
          <Chart mirror={mirror} store={store} ready={status !== 'pending'} snapshot={snapshot} rpoSeconds={data?.objectives?.rpoSeconds ?? null}
            rpoRecords={data?.objectives?.rpoRecords ?? null}
          />
          {table}
        </>
      )}
    </div>
  )
}
