'use client'

import Link from 'next/link'
import { useAttention } from '@/components/data/use-attention'
import { useClusters } from '@/components/data/use-clusters'
import { useMirrors } from '@/components/data/use-mirrors'
import { useOperations } from '@/components/data/use-operations'
import { useCanOperate, usePageSession } from '@/components/data/session-context'
import { TopologyPanel, type InitialTopologyLayout } from '@/components/topology/topology-panel'
import { ErrorPanel } from '@/components/ui/error-panel'
import { ManageLinks } from '@/components/manage/manage-links'
import { AttentionPanel } from './attention-panel'
import { DemoBanner } from './demo-banner'
import { DrillCadencePanel } from './drill-cadence-panel'
import { EmptyOverview } from './empty-overview'
import { OverviewIncidents } from './overview-incidents'
import { RecentOperations } from './recent-operations'
import { StateCounts } from './state-counts'

/**
 * The overview (UI.md §2): what needs attention first, the topology beside it, partitions by state and the
 * latest operations below. Live through the event stream: cache-sync refetches the mirror list within a second of a
 * partition event and at most every 5 s while only lag moves, the attention list on partition events and every few seconds.
 */
export function Overview({ initialLayout }: { initialLayout: InitialTopologyLayout | null }) {
  const session = usePageSession()
  const canOperate = useCanOperate()
  const clusters = useClusters()
  const mirrors = useMirrors()
  const attention = useAttention()
  const operations = useOperations()

  const listError = clusters.error ?? mirrors.error
  const empty = clusters.data !== undefined && mirrors.data !== undefined && clusters.data.clusters.length === 0 && mirrors.data.mirrors.length === 0
  const clusterCount = clusters.data?.clusters.length
  const mirrorCount = mirrors.data?.mirrors.length

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Overview</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
            {clusterCount === undefined || mirrorCount === undefined
              ? 'Clusters, mirrors and what needs attention.'
              : `${clusterCount} ${clusterCount === 1 ? 'cluster' : 'clusters'} · ${mirrorCount} ${mirrorCount === 1 ? 'mirror' : 'mirrors'}`}
            {/* Not in the header: a sixth link crowds the phone's header; who runs the mirrors is an overview question. */}
            {' · '}
            <Link prefetch={false} href="/instances" className="font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
              Instances
            </Link>
          </p>
        </div>
        {canOperate && <ManageLinks clusterCount={clusterCount ?? 0} />}
      </div>
      <OverviewIncidents attention={attention.data} mirrors={mirrors.data?.mirrors} />
      {session?.demo && <DemoBanner canOperate={canOperate} />}
      {listError !== null && (clusters.data === undefined || mirrors.data === undefined) ? (
        <ErrorPanel
          error={listError}
          title="Could not load clusters and mirrors"
          onRetry={() => {
            void clusters.refetch()
            void mirrors.refetch()
          }}
        />
      ) : empty ? (
        <EmptyOverview canOperate={canOperate} />
      ) : (
        <>
          <div className="grid gap-6 lg:grid-cols-3">
            <div className="min-w-0 lg:col-span-1">
              <AttentionPanel attention={attention.data} error={attention.error} onRetry={() => void attention.refetch()} rpoBreaches={attention.data?.rpoBreaches} />
            </div>
            <div className="min-w-0 lg:col-span-2">
              <TopologyPanel clusters={clusters.data?.clusters} mirrors={mirrors.data?.mirrors} initialLayout={initialLayout} />
            </div>
          </div>
          <StateCounts mirrors={mirrors.data?.mirrors} />
          <DrillCadencePanel mirrors={mirrors.data?.mirrors} />
          <RecentOperations operations={operations.data?.operations} error={operations.error} onRetry={() => void operations.refetch()} />
        </>
      )}
    </div>
  )
}
