'use client'

import Link from 'next/link'
import type { Operation } from '@/lib/api/operations'
import { formatDuration, counted } from '@/lib/ui/format'
import { buttonClass } from '@/components/ui/button-class'
import { OperationOutcome } from '@/components/operations/operation-outcome'
import { ReportDownload } from '@/components/operations/report-download'
import { SwitchoverPhases } from '@/components/operations/switchover-phases'
import { SplitBrainNotice } from './split-brain-notice'

/** Step 6: how it ended, what was aborted where and where the PID reset landed, the next steps, the report. */
export function FailoverResult({ operation, destinationCluster }: { operation: Operation; destinationCluster: string }) {
  const failed = operation.partitions.filter((partition) => partition.state !== 'STOPPED')
  const mirror = operation.mirror
  const switchover = operation.switchover
  return (
    <div className="space-y-4">
      {switchover !== undefined && switchover.phase === 'rolledBack' ? (
        <p role="status" className="rounded-lg border border-slate-300 bg-slate-50 p-3 text-sm text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100">
          ↶ The switchover rolled back: {switchover.reason}. <span className="font-mono font-semibold">{mirror}</span> mirrors as before and the source takes writes again; nothing
          was lost. Find what kept it from draining, then switch over again.
        </p>
      ) : switchover !== undefined && operation.status === 'succeeded' ? (
        <p role="status" className="rounded-lg border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-50">
          ✓ Switched over with nothing lost (0 records, measured): writes were refused on the source for{' '}
          {formatDuration(Math.max(0, (switchover.stoppedAt ?? 0) - (switchover.fencedAt ?? 0)))}; every partition is STOPPED and its topic is writable on{' '}
          <span className="font-mono font-semibold">{destinationCluster}</span>. The old source stays fenced until a failback.
        </p>
      ) : operation.status === 'succeeded' ? (
        <p role="status" className="rounded-lg border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-50">
          ✓ Failover done in {formatDuration((operation.finishedAt ?? operation.startedAt) - operation.startedAt)}: every partition is STOPPED and its topic is writable on{' '}
          <span className="font-mono font-semibold">{destinationCluster}</span>.
        </p>
      ) : (
        <p role="status" className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-50">
          ✕ The failover finished with {failed.length} of {counted(operation.partitions.length, 'partition')} not STOPPED. Open each below to see why; recover FAILED partitions from the{' '}
          <Link prefetch={false} className="underline underline-offset-2" href={`/mirrors/${encodeURIComponent(mirror)}`}>
            mirror page
          </Link>{' '}
          and fail over their topics again.
        </p>
      )}
      {switchover !== undefined && <SwitchoverPhases operation={operation} now={operation.finishedAt ?? operation.startedAt} canCancel={false} />}
      {switchover?.phase !== 'rolledBack' && <SplitBrainNotice mirror={mirror} showQuiet />}
      <OperationOutcome id={operation.id} />
      <section aria-labelledby="next-steps" className="rounded-lg border border-slate-200 p-3 dark:border-slate-700">
        <h3 id="next-steps" className="text-sm font-semibold">
          Next steps
        </h3>
        <ol className="mt-1 list-decimal space-y-1 pl-5 text-sm">
          <li>
            Point producers and consumers at <span className="font-mono">{destinationCluster}</span>. Consumer groups resume from their synced offsets there.
          </li>
          <li>Stop every producer that still writes to the old source: the split-brain guard above counts what they write.</li>
          <li>
            When the old source is back and you want to return, run the{' '}
            <Link prefetch={false} className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(mirror)}/failback`}>
              failback wizard
            </Link>
            .
          </li>
        </ol>
      </section>
      <div className="flex flex-wrap gap-2">
        <ReportDownload id={operation.id} variant="primary" />
        <Link prefetch={false} className={buttonClass('secondary')} href={`/operations/${encodeURIComponent(operation.id)}`}>
          Open the operation page
        </Link>
        <Link prefetch={false} className={buttonClass('ghost')} href={`/mirrors/${encodeURIComponent(mirror)}`}>
          Back to the mirror
        </Link>
      </div>
    </div>
  )
}
