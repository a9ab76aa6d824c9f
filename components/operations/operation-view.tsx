'use client'

import Link from 'next/link'
import { useLiveOperation } from '@/components/data/use-live-operation'
import { Figure } from '@/components/failover/figure'
import { operationRtoMs } from '@/lib/failover/recovery-time'
import { SourceFencePanel } from '@/components/failover/source-fence-panel'
import { SplitBrainNotice } from '@/components/failover/split-brain-notice'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { gateTitle } from '@/lib/failover/gate-forcing'
import { planTotals } from '@/lib/failover/plan-totals'
import { exactTime, formatCount, formatDuration } from '@/lib/ui/format'
import { OPERATION_STATUS_STYLE } from '@/lib/ui/status-style'
import { StatusBadge } from '@/components/ui/status-badge'
import { OperationOutcome } from './operation-outcome'
import { OperationProgress } from './operation-progress'
import { ReportDownload } from './report-download'
import { requesterName } from '@/lib/ui/requester-name'

/** The operation page: live progress while it runs, then the outcome per partition and the report. */
export function OperationView({ id }: { id: string }) {
  const operation = useLiveOperation(id)
  if (operation.isPending) return <Skeleton className="h-64 w-full" />
  if (operation.isError) return <ErrorPanel error={operation.error} title="Could not read the operation" onRetry={() => void operation.refetch()} />
  const data = operation.data
  const totals = data.plan ? planTotals(data.plan.partitions) : null
  // Measured as the report measures it (lib/failover/recovery-time.ts).
  const rtoMs = operationRtoMs(data)
  return (
    <div className="space-y-5">
      <header className="space-y-2">
        <p className="text-sm">
          <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(data.mirror)}`}>
            ← Mirror {data.mirror}
          </Link>
        </p>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight break-words">
            {data.kind === 'failover' ? 'Failover' : data.kind} of {data.mirror}
          </h1>
          <StatusBadge look={OPERATION_STATUS_STYLE[data.status]} size="md" data-testid="operation-status" />
        </div>
        <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
          <div className="flex gap-1">
            <dt>Started</dt>
            <dd title={exactTime(data.startedAt)}>
              <RelativeTime at={data.startedAt} />
            </dd>
          </div>
          {data.finishedAt !== null && (
            <div className="flex gap-1">
              <dt>Took</dt>
              <dd>{formatDuration(data.finishedAt - data.startedAt)}</dd>
            </div>
          )}
          {rtoMs !== null && (
            <div className="flex gap-1" data-testid="operation-rto">
              <dt title="from the start to the last partition STOPPED: the destination writable">RTO</dt>
              <dd>{formatDuration(rtoMs)}</dd>
            </div>
          )}
          {data.requestedBy != null && (
            <div className="flex gap-1">
              <dt>Confirmed by</dt>
              <dd title={data.requestedBy.actor}>
                {requesterName(data.requestedBy)}
              </dd>
            </div>
          )}
          <div className="flex gap-1">
            <dt>Forced gates</dt>
            <dd>{data.forcedGates && data.forcedGates.length > 0 ? data.forcedGates.map(gateTitle).join(', ') : 'none'}</dd>
          </div>
          <div className="flex gap-1">
            <dt>Id</dt>
            <dd className="font-mono break-all">{data.id}</dd>
          </div>
        </dl>
        <div className="flex flex-wrap gap-2 pt-1">
          <ReportDownload id={data.id} />
        </div>
      </header>
      <SplitBrainNotice mirror={data.mirror} showQuiet={data.status !== 'running'} />
      {/* After a planned switchover: the old source's fence, until a failback or an unfence lifts it. */}
      {data.type === 'planned' && data.status === 'succeeded' && <SourceFencePanel mirror={data.mirror} />}
      {totals !== null && (
        <Panel title="The plan confirmed">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            <Figure label="Partitions" value={formatCount(totals.partitionsToStop)} />
            <Figure label="Records at risk" value={totals.recordsAtRisk === null ? 'unknown' : formatCount(totals.recordsAtRisk)} tone={totals.recordsAtRisk === 0 ? 'neutral' : 'danger'} />
            <Figure label="Oldest at risk" value={totals.maxTimeAtRiskMs === null ? 'unknown' : formatDuration(totals.maxTimeAtRiskMs)} />
            <Figure label="Transactions to abort" value={formatCount(totals.transactionsToAbort)} />
          </dl>
        </Panel>
      )}
      <Panel title={data.status === 'running' ? 'Progress' : 'Steps per partition'}>
        <OperationProgress operation={data} />
      </Panel>
      {data.status !== 'running' && (
        <Panel title="Outcome">
          <OperationOutcome id={data.id} />
        </Panel>
      )}
    </div>
  )
}
