'use client'

import { Skeleton } from '@/components/ui/panel'
import { BrokersPanel } from './brokers-panel'
import { GroupsPanel } from './groups-panel'
import { TopicsPanel } from './topics-panel'

const noRetry = () => {}

/** The cluster page while its first data loads: the same panels, each as its own skeleton. */
export function ClusterPageSkeleton() {
  return (
    <div className="space-y-6" aria-busy="true" aria-label="Loading the cluster">
      <Skeleton className="h-4 w-32" />
      <div className="space-y-2">
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-4 w-80" />
      </div>
      <BrokersPanel cluster={undefined} />
      <TopicsPanel cluster="" topics={undefined} mirrors={[]} error={null} onRetry={noRetry} />
      <GroupsPanel groups={undefined} error={null} onRetry={noRetry} />
    </div>
  )
}
