import { Panel, Skeleton } from '@/components/ui/panel'

/** The partition page's shape while its first answers load. */
export function PartitionSkeleton() {
  return (
    <div className="flex flex-col gap-6" aria-busy="true" aria-label="Loading the partition">
      <div className="flex flex-col gap-2">
        <Skeleton className="h-4 w-64" />
        <Skeleton className="h-8 w-80 max-w-full" />
        <Skeleton className="h-5 w-96 max-w-full" />
        <Skeleton className="mt-2 h-16 w-full" />
      </div>
      <Panel title="Logs, aligned by offset">
        <Skeleton className="h-44 w-full" />
      </Panel>
      <div className="grid gap-6 xl:grid-cols-[minmax(0,7fr)_minmax(0,5fr)]">
        <Panel title="State graph">
          <Skeleton className="h-80 w-full" />
        </Panel>
        <Panel title="Timeline (newest first)">
          <div className="flex flex-col gap-3">
            {[0, 1, 2, 3].map((row) => (
              <Skeleton key={row} className="h-10 w-full" />
            ))}
          </div>
        </Panel>
      </div>
    </div>
  )
}
