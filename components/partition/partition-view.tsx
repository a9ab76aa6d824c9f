'use client'

import { memo, useCallback, useDeferredValue } from 'react'
import { useMirror } from '@/components/data/use-mirrors'
import { usePartitionSnapshot } from '@/components/data/use-partition-snapshot'
import { usePartitionHistory } from '@/components/data/use-partition-history'
import { EmulationNotes } from '@/components/mirror/emulation-notes'
import { LazyStateGraph } from '@/components/state-graph/lazy-state-graph'
import { ErrorPanel } from '@/components/ui/error-panel'
import { NotFoundPanel } from '@/components/ui/not-found-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { isApiError } from '@/lib/api/errors'
import type { Mirror, PartitionHistory } from '@/lib/api/mirrors'
import type { PartitionSnapshot } from '@/lib/api/partition-snapshot'
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
  phone = false,
}: {
  mirror: string
  topic: string
  partition: number
  initialSelection: number | null
  initialSize: LogWindowSize
  verification?: string | null
  /** The server's guess that the screen is a phone's (lib/ui/phone-guess.ts): the tapes' first render at its width. */
  phone?: boolean
}) {
  const mirrorQuery = useMirror(mirror)
  const clusters = mirrorQuery.data === undefined ? [] : [mirrorQuery.data.sourceCluster, mirrorQuery.data.destinationCluster]
  // Every figure of the page, header and tapes, from this one reading.
  const snapshotQuery = usePartitionSnapshot(mirror, topic, partition, clusters)
  const history = usePartitionHistory(mirror, topic, partition)
  // The answers as transitions: TanStack Query tells its observers synchronously, and the snapshot is read every
  // 2 s (and on the partition's events), so the header and both log tapes had re-rendered in one blocking task
  // each time. The body below re-renders only with the deferred answers, in slices React yields between.
  const mirrorData = useDeferredValue(mirrorQuery.data)
  const snapshotData = useDeferredValue(snapshotQuery.data)
  const historyData = useDeferredValue(history.data)
  const { refetch: refetchHistory } = history
  const retryHistory = useCallback(() => void refetchHistory(), [refetchHistory])

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
  if (mirrorData === undefined || snapshotData === undefined) return <PartitionSkeleton />
  return (
    <PartitionBody
      mirror={mirrorData}
      snapshot={snapshotData}
      refreshError={snapshotQuery.isError ? snapshotQuery.error : null}
      history={historyData}
      historyError={history.isError ? history.error : null}
      onRetryHistory={retryHistory}
      initialSelection={initialSelection}
      initialSize={initialSize}
      verification={verification}
      phone={phone}
    />
  )
}

const PartitionBody = memo(function PartitionBody({
  mirror,
  snapshot,
  refreshError,
  history,
  historyError,
  onRetryHistory,
  initialSelection,
  initialSize,
  verification,
  phone,
}: {
  mirror: Mirror
  snapshot: PartitionSnapshot
  refreshError: Error | null
  history: PartitionHistory | undefined
  historyError: Error | null
  onRetryHistory: () => void
  initialSelection: number | null
  initialSize: LogWindowSize
  verification: string | null
  phone: boolean
}) {
  const found = snapshot.partition
  const transitions = history?.transitions ?? []
  return (
    <div className="flex flex-col gap-6">
      <PartitionHeader mirror={mirror} snapshot={snapshot} refreshError={refreshError} />
      <EmulationNotes emulation={found.emulation} scope="partition" />
      <Panel title="Logs, aligned by offset" id="logs">
        <PartitionLogs mirror={mirror} snapshot={snapshot} initialSelection={initialSelection} initialSize={initialSize} verification={verification} phone={phone} />
      </Panel>
      <div className="grid gap-6 xl:grid-cols-[minmax(0,7fr)_minmax(0,5fr)]">
        <Panel title="State graph" id="state-graph">
          <LazyStateGraph current={found.state} transitions={transitions} />
        </Panel>
        <Panel title="Timeline (newest first)" id="timeline">
          {historyError !== null ? (
            <ErrorPanel title="Could not load the transitions" error={historyError} onRetry={onRetryHistory} compact />
          ) : history === undefined ? (
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
})
