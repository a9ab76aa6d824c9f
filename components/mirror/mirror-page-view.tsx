'use client'

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
import { DrillsTab } from '@/components/drills/drills-tab'
import { VerificationsTab } from '@/components/verifications/verifications-tab'
import { isApiError } from '@/lib/api/errors'
import { MirrorHeader, MirrorHeaderSkeleton } from './mirror-header'
import { MirrorIncident } from './mirror-incident'
import { MirrorTabs, useMirrorTab } from './mirror-tabs'
import { MirrorThroughput } from './mirror-throughput'
import { MirrorTimeline } from './mirror-timeline'
import { useMirrorSnapshot } from './use-mirror-snapshot'

/**
 * The mirror page: header with actions, then its sections (`?tab=`): the lag chart and partition table, fed by
 * one live partition store; the drills; the verifications. `firstRows`: the table's first screen, rendered with
 * the page's HTML while the whole list loads.
 */
export function MirrorPageView({ mirror, firstRows = null }: { mirror: string; firstRows?: PartitionPreview | null }) {
  const summary = useMirror(mirror)
  const partitions = useMirrorPartitions(mirror, firstRows)
  const tab = useMirrorTab()
  // One reading of the partitions for every figure on the page (header, banner, chart's trend).
  const snapshot = useMirrorSnapshot(partitions.store)
  if (summary.isError && summary.data === undefined) {
    // Deleted while the page was open (the server's own check answered the first render).
    if (isApiError(summary.error, 'NOT_FOUND')) return <NotFoundPanel what={`No mirror named “${mirror}”`} detail="It may have been deleted." />
    return <ErrorPanel error={summary.error} title={`Could not load mirror ${mirror}`} onRetry={() => void summary.refetch()} />
  }
  return (
    <div className="flex flex-col gap-6">
      {/* The incident first: what broke, since when, and what to do. */}
      {summary.data !== undefined && <MirrorIncident mirror={summary.data} store={partitions.store} snapshot={snapshot} />}
      {summary.data === undefined ? <MirrorHeaderSkeleton /> : <MirrorHeader mirror={summary.data} store={partitions.store} snapshot={snapshot} />}
      {summary.data !== undefined && <MirrorThroughput mirror={summary.data} snapshot={snapshot} />}
      {/* After a failover: records still written to the old source (renders nothing before one). */}
      <SplitBrainNotice mirror={mirror} showQuiet />
      {/* A planned switchover's fence on the old source (only a failed-over mirror can hold one). */}
      {(summary.data?.partitionsByState.STOPPED ?? 0) > 0 && <SourceFencePanel mirror={mirror} />}
      {/* When it broke, the retries as one row, when it healed, what operators did (nothing before a first failure). */}
      <MirrorTimeline mirror={mirror} />
      <ObjectivesPanel mirror={mirror} />
      <MirrorTabs current={tab} badges={summary.data?.drills?.running ? { drills: 'running' } : {}} />
      {tab === 'drills' && summary.data !== undefined && <DrillsTab mirror={summary.data} />}
      {tab === 'verifications' && summary.data !== undefined && <VerificationsTab mirror={summary.data} />}
      {tab === 'partitions' && (
        <>
          {/* The table's rows come first; the lag history (megabytes for 10,000 partitions) is asked for once they are in. */}
          <LagChart mirror={mirror} store={partitions.store} ready={partitions.status !== 'pending'} snapshot={snapshot} rpoSeconds={summary.data?.objectives?.rpoSeconds ?? null}
            rpoRecords={summary.data?.objectives?.rpoRecords ?? null}
          />
          <PartitionTable
            mirror={mirror}
            store={partitions.store}
            status={partitions.status}
            error={partitions.error}
            isFetching={partitions.isFetching}
            onRetry={() => void partitions.refetch()}
          />
        </>
      )}
    </div>
  )
}
