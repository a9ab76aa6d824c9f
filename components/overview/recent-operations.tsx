import Link from 'next/link'
import type { Operation } from '@/lib/api/operations'
import { OPERATION_STATUS_STYLE } from '@/lib/ui/status-style'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'

const SHOWN = 5

/** The latest failovers (running ones first), each linking to its progress and report. */
export function RecentOperations({ operations, error, onRetry }: { operations: readonly Operation[] | undefined; error: unknown; onRetry: () => void }) {
  return (
    <Panel id="recent-operations" title="Recent operations">
      {error !== null && operations === undefined ? (
        <ErrorPanel error={error} title="Could not load operations" onRetry={onRetry} compact />
      ) : operations === undefined ? (
        <div className="space-y-2" aria-hidden>
          <Skeleton className="h-8 w-full" />
          <Skeleton className="h-8 w-full" />
        </div>
      ) : operations.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">No failover has run yet. Failovers start from a mirror&apos;s page and show their progress here.</p>
      ) : (
        <ul className="divide-y divide-slate-100 dark:divide-slate-800">
          {[...operations]
            .sort((a, b) => Number(b.status === 'running') - Number(a.status === 'running') || b.startedAt - a.startedAt)
            .slice(0, SHOWN)
            .map((operation) => (
              <li key={operation.id}>
                <Link prefetch={false}
                  href={`/operations/${encodeURIComponent(operation.id)}`}
                  className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md px-1 py-2 text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:bg-slate-800/60"
                >
                  <span className="font-medium text-slate-900 dark:text-white">
                    {operation.kind} {operation.mirror}
                  </span>
                  <StatusBadge look={OPERATION_STATUS_STYLE[operation.status]} />
                  <span className="text-slate-600 dark:text-slate-300">
                    {operation.partitions.length} {operation.partitions.length === 1 ? 'partition' : 'partitions'}
                  </span>
                  <span className="ml-auto text-xs text-slate-500 dark:text-slate-400">
                    started <RelativeTime at={operation.startedAt} />
                  </span>
                </Link>
              </li>
            ))}
        </ul>
      )}
    </Panel>
  )
}
