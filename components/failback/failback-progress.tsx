'use client'

import { useEffect, useRef } from 'react'
import { useFailbackMirror } from '@/components/data/use-failback'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { StateBadge } from '@/components/ui/state-badge'
import { failbackProgress } from '@/lib/failover/failback'
import { MIRROR_PARTITION_STATES } from '@/lib/mirror/states'
import { formatCount, counted } from '@/lib/ui/format'

/** The failback mirror while it truncates and catches up: partitions per state until all MIRROR. */
export function FailbackProgressView({ name, expected, onDone }: { name: string; expected: number; onDone: () => void }) {
  const summary = useFailbackMirror(name, true)
  const progress = summary.data ? failbackProgress(summary.data.partitionsByState, expected) : null
  const reported = useRef(false)
  useEffect(() => {
    if (progress?.done && !reported.current) {
      reported.current = true
      onDone()
    }
  }, [progress?.done, onDone])
  if (summary.isPending) return <Skeleton className="h-24 w-full" />
  if (summary.isError) return <ErrorPanel error={summary.error} title={`Could not read mirror ${name}`} onRetry={() => void summary.refetch()} />
  if (progress === null) return null
  const percent = progress.total === 0 ? 0 : Math.floor((progress.mirroring / progress.total) * 100)
  return (
    <div className="space-y-3">
      <p className="text-sm">
        <span className="text-2xl font-semibold tabular-nums">{formatCount(progress.mirroring)}</span> of {counted(progress.total, 'partition')} of{' '}
        <span className="font-mono">{name}</span> MIRRORING
      </p>
      <div role="progressbar" aria-label="Failback progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} className="h-2.5 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800">
        <div className="h-full bg-indigo-600 dark:bg-indigo-400" style={{ width: `${percent}%` }} />
      </div>
      <ul className="flex flex-wrap gap-2" aria-label="Partitions per state">
        {MIRROR_PARTITION_STATES.filter((state) => (summary.data.partitionsByState[state] ?? 0) > 0).map((state) => (
          <li key={state}>
            <StateBadge state={state} count={summary.data.partitionsByState[state]} />
          </li>
        ))}
      </ul>
      {progress.failed > 0 && (
        <p role="alert" className="text-sm text-red-800 dark:text-red-300">
          ✕ {counted(progress.failed, 'partition')} FAILED: open the mirror page of {name} to see why and recover them.
        </p>
      )}
    </div>
  )
}
