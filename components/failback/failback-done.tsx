'use client'

import Link from 'next/link'
import { useMirrorPartitionList, useTopicLogEnds } from '@/components/data/use-failback'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import type { Mirror } from '@/lib/api/mirrors'
import { compareLogEnds } from '@/lib/failover/failback'
import { formatCount } from '@/lib/ui/format'
import { TruncationTable } from './truncation-table'

/** The end of a failback: every partition mirrors, the old source's log is compared with the new source's. */
export function FailbackDone({ mirror, reverseName }: { mirror: Mirror; reverseName: string }) {
  const oldSource = useTopicLogEnds(mirror.sourceCluster, mirror.topics, { enabled: true, refetchMs: 2_000 })
  const newSource = useTopicLogEnds(mirror.destinationCluster, mirror.topics, { enabled: true, refetchMs: 2_000 })
  const reverse = useMirrorPartitionList(reverseName, true)
  const failure = oldSource.error ?? newSource.error ?? reverse.error
  if (failure) {
    return (
      <ErrorPanel
        error={failure}
        title="Could not compare the logs"
        onRetry={() => {
          oldSource.refetch()
          newSource.refetch()
          void reverse.refetch()
        }}
      />
    )
  }
  if (oldSource.isPending || newSource.isPending || reverse.isPending) return <Skeleton className="h-32 w-full" />
  const comparison = compareLogEnds(oldSource.partitions, newSource.partitions)
  const matching = comparison.filter((entry) => entry.matches).length
  const truncations = (reverse.data?.partitions ?? []).map((partition) => ({
    topic: partition.topic,
    partition: partition.partition,
    truncateTo: partition.lastTruncation?.offset ?? null,
    recordsToRemove: partition.lastTruncation?.removedRecords ?? 0,
    lastMirrorPosition: null,
  }))
  return (
    <div className="space-y-4">
      {matching === comparison.length ? (
        <p role="status" className="rounded-lg border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-50" data-testid="logs-match">
          ✓ Failback done: every partition of <span className="font-mono">{reverseName}</span> MIRRORS, and the old source <span className="font-mono">{mirror.sourceCluster}</span> ends where the new source{' '}
          <span className="font-mono">{mirror.destinationCluster}</span> does on all {formatCount(comparison.length)} partitions.
        </p>
      ) : (
        <p role="status" className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-50">
          ◷ Every partition MIRRORS; {formatCount(matching)} of {formatCount(comparison.length)} old-source logs already end where the new source&apos;s do (the rest are catching up or take new writes).
        </p>
      )}
      <TruncationTable linkMirror={reverseName} entries={truncations} oldSource={mirror.sourceCluster} newSource={mirror.destinationCluster} before={false} />
      <div className="flex flex-wrap gap-2">
        <Link prefetch={false} className={buttonClass('primary')} href={`/mirrors/${encodeURIComponent(reverseName)}`}>
          Open mirror {reverseName}
        </Link>
        <Link prefetch={false} className={buttonClass('secondary')} href={`/mirrors/${encodeURIComponent(mirror.name)}`}>
          Back to {mirror.name}
        </Link>
      </div>
    </div>
  )
}
