'use client'

import Link from 'next/link'
import { useDemoEvents, useDemoStatus } from '@/components/data/use-demo'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { StatusBadge } from '@/components/ui/status-badge'
import { FaultsPanel } from './faults-panel'
import { ScenariosPanel } from './scenarios-panel'
import { WorkloadsPanel } from './workloads-panel'

/** The demo's control room: narrated scenarios first, then the live workloads and the faults to break them with. */
export function ControlRoom() {
  useDemoEvents()
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">Demo control room</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-300">
          Run a narrated scenario on clusters of its own, change what the live producers write, or break the live mirror and watch it recover.
        </p>
        <LiveMirrorLine />
      </div>
      <ScenariosPanel />
      <WorkloadsPanel />
      <FaultsPanel />
    </div>
  )
}

function LiveMirrorLine() {
  const status = useDemoStatus()
  if (status.isPending) return <Skeleton className="mt-3 h-5 w-80" />
  if (status.isError) {
    return (
      <div className="mt-3">
        <ErrorPanel error={status.error} title="Could not read the demo's status" onRetry={() => void status.refetch()} compact />
      </div>
    )
  }
  const { sourceCluster, destinationCluster, mirror, topics } = status.data
  if (status.data.status === 'failed') {
    return (
      <div className="mt-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100" role="alert">
        <p className="font-semibold">
          <span aria-hidden>✕ </span>The live clusters could not be set up
        </p>
        <p className="mt-0.5 break-words">{status.data.error}</p>
      </div>
    )
  }
  return (
    <p className="mt-3 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
      <span className="font-medium">Live mirror</span>
      <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror)}`} className="font-mono font-medium text-indigo-700 underline decoration-indigo-300 underline-offset-2 dark:text-indigo-300 dark:decoration-indigo-700">
        {mirror}
      </Link>
      <span className="font-mono text-slate-600 dark:text-slate-400">
        {sourceCluster} → {destinationCluster}
      </span>
      <span className="text-slate-600 dark:text-slate-400">· {topics.join(', ')}</span>
      {status.data.status === 'starting' && (
        <StatusBadge look={{ label: 'starting…', icon: '◔', tone: 'progress' }} />
      )}
    </p>
  )
}
