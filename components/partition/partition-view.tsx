'use client'

import { useMirror } from '@/components/data/use-mirrors'
import { usePartitionSnapshot } from '@/components/data/use-partition-snapshot'
import { usePartitionHistory } from '@/components/data/use-partition-history'
import { EmulationNotes } from '@/components/mirror/emulation-notes'
import { LazyStateGraph } from '@/components/state-graph/lazy-state-graph'
import { ErrorPanel } from '@/components/ui/error-panel'
import { NotFoundPanel } from '@/components/ui/not-found-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { isApiError } from '@/lib/api/errors'
import type { LogWindowSize } from '@/lib/ui/log-strip'
import { PartitionHeader } from './partition-header'
import { PartitionLogs } from './partition-logs'
import { PartitionSkeleton } from './partition-skeleton'
import { TransitionTimeline } from './transition-timeline'

/**
 * The partition page (UI.md §2): header, the log tapes (what a failover would cost, above the fold), then the
 * state graph and the timeline side by side.
 */
export function PartitionView({
  mirror,
  topic,
  partition,
  initialSelection,
  initialSize,
  verification = null,
}: {
  mirror: string
  topic: string
  partition: number
  initialSelection: number | null
  initialSize: LogWindowSize
  verification?: string | null
}) {
  const mirrorQuery = useMirror(mirror)
  const clusters = mirrorQuery.data === undefined ? [] : [mirrorQuery.data.sourceCluster, mirrorQuery.data.destinationCluster]
  // Every figure of the page, header and tapes, from this one reading.
  const snapshotQuery = usePartitionSnapshot(mirror, topic, partition, clusters)
  const history = usePartitionHistory(mirror, topic, partition)

  if (mirrorQuery.isError && mirrorQuery.data === undefined) return <ErrorPanel title={`Could not load mirror ${mirror}`} error={mirrorQuery.error} onRetry={() => void mirrorQuery.refetch()} />
  if (snapshotQuery.isError && snapshotQuery.data === undefined) {
    if (isApiError(snapshotQuery.error, 'NOT_FOUND')) {
      return (
        <NotFoundPanel
          what={`Mirror ${mirror} has no partition ${topic} / ${partition}`}
          detail={snapshotQuery.error.message}
          backHref={`/mirrors/${encodeURIComponent(mirror)}`}
          backLabel={`Back to mirror ${mirror}`}
        />
      )
    }
    return <ErrorPanel title={`Could not load ${topic} / ${partition}`} error={snapshotQuery.error} onRetry={() => void snapshotQuery.refetch()} />
  }
  if (mirrorQuery.data === undefined || snapshotQuery.data === undefined) return <PartitionSkeleton />
  const snapshot = snapshotQuery.data
  const found = snapshot.partition
  const transitions = history.data?.transitions ?? []
  return (
    <div className="flex flex-col gap-6">
      <PartitionHeader mirror={mirrorQuery.data} snapshot={snapshot} refreshError={snapshotQuery.isError ? snapshotQuery.error : null} />
      <EmulationNotes emulation={found.emulation} scope="partition" />
      <Panel title="Logs, aligned by offset" id="logs">
        <PartitionLogs mirror={mirrorQuery.data} snapshot={snapshot} initialSelection={initialSelection} initialSize={initialSize} verification={verification} />
      </Panel>
      <div className="grid gap-6 xl:grid-cols-[minmax(0,7fr)_minmax(0,5fr)]">
        <Panel title="State graph" id="state-graph">
          <LazyStateGraph current={found.state} transitions={transitions} />
        </Panel>
        <Panel title="Timeline (newest first)" id="timeline">
          {history.isError ? (
            <ErrorPanel title="Could not load the transitions" error={history.error} onRetry={() => void history.refetch()} compact />
          ) : history.data === undefined ? (
            <div className="flex flex-col gap-3">
              {[0, 1, 2].map((row) => (
                <Skeleton key={row} className="h-10 w-full" />
              ))}
            </div>
          ) : (
            <div className="max-h-[36rem] overflow-y-auto pr-1">
              <TransitionTimeline transitions={transitions} currentError={found.error} />
            </div>
          )}
        </Panel>
      </div>
    </div>
  )
}
