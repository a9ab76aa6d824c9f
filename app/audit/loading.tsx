import { Panel, Skeleton } from '@/components/ui/panel'

export default function Loading() {
  return (
    <div className="space-y-6" aria-busy="true" aria-label="Loading the audit log">
      <div className="space-y-2">
        <Skeleton className="h-8 w-40" />
        <Skeleton className="h-4 w-96 max-w-full" />
      </div>
      <Skeleton className="h-24 w-full" />
      <Panel title="Entries">
        <div className="space-y-2">
          {Array.from({ length: 6 }, (_, index) => (
            <Skeleton key={index} className="h-10 w-full" />
          ))}
        </div>
      </Panel>
    </div>
  )
}
