import { Panel, Skeleton } from '@/components/ui/panel'
import { PartitionTableSkeleton } from '@/components/partitions/partition-table'
import { MirrorHeaderSkeleton } from './mirror-header'

/** The mirror page's layout while it loads, so nothing jumps when the data arrives. */
export function MirrorPageSkeleton() {
  return (
    <div className="flex flex-col gap-6" aria-busy="true">
      <span className="sr-only">Loading the mirror…</span>
      <MirrorHeaderSkeleton />
      <Panel title="Lag">
        <Skeleton className="h-[220px] w-full" />
      </Panel>
      <PartitionTableSkeleton />
    </div>
  )
}
