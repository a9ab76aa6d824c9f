'use client'

import Link from 'next/link'
import { useCanOperate } from '@/components/data/session-context'
import { useCancelVerification, useVerification } from '@/components/data/use-verifications'
import { Figure } from '@/components/failover/figure'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { NotFoundPanel } from '@/components/ui/not-found-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'
import { isApiError } from '@/lib/api/errors'
import type { Verification, VerificationPartition } from '@/lib/api/verifications'
import { counted, exactTime, formatBytes, formatCount, formatDuration, formatOffset } from '@/lib/ui/format'
import { PARTITION_VERIFICATION_STATUS_STYLE, VERIFICATION_STATUS_STYLE } from '@/lib/ui/status-style'
import { mismatchHref, partitionsWorstFirst } from '@/lib/ui/verification-view'
import { partitionHref } from '@/lib/ui/partition-href'
import { VerificationProgress } from './verification-progress'
import { requesterName } from '@/lib/ui/requester-name'

const ROWS_SHOWN = 200

/** The verification page: progress while it runs, then per partition what was compared and every mismatch by offset. */
export function VerificationView({ id }: { id: string }) {
  const verification = useVerification(id)
  if (verification.isPending) return <Skeleton className="h-64 w-full" />
  if (verification.isError) {
    if (isApiError(verification.error, 'NOT_FOUND')) return <NotFoundPanel what={`No verification ${id}`} detail="It may have been removed from the history." />
    return <ErrorPanel error={verification.error} title="Could not read the verification" onRetry={() => void verification.refetch()} />
  }
  return <VerificationDetails verification={verification.data} />
}

function VerificationDetails({ verification }: { verification: Verification }) {
  const canOperate = useCanOperate({ mirror: verification.mirror })
  const cancel = useCancelVerification(verification.id, verification.mirror)
  const { totals } = verification
  const rows = partitionsWorstFirst(verification.partitions)
  const withMismatches = rows.filter((partition) => partition.mismatches.length > 0)
  return (
    <div className="space-y-5">
      <header className="space-y-2">
        <p className="text-sm">
          <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(verification.mirror)}?tab=verifications`}>
            ← Verifications of {verification.mirror}
          </Link>
        </p>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight break-words">Verification of {verification.mirror}</h1>
          <StatusBadge look={VERIFICATION_STATUS_STYLE[verification.status]} size="md" data-testid="verification-status" />
        </div>
        <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
          <div className="flex gap-1">
            <dt>Started</dt>
            <dd title={exactTime(verification.startedAt)}>
              <RelativeTime at={verification.startedAt} />
            </dd>
          </div>
          {verification.finishedAt !== null && (
            <div className="flex gap-1">
              <dt>Took</dt>
              <dd>{formatDuration(verification.finishedAt - verification.startedAt)}</dd>
            </div>
          )}
          <div className="flex gap-1">
            <dt>Compared</dt>
            <dd>
              <span className="font-mono">{verification.sourceCluster}</span> → <span className="font-mono">{verification.destinationCluster}</span>,{' '}
              {verification.mode === 'bytes' ? 'byte for byte with CRCs' : 'record content at translated offsets'}
            </dd>
          </div>
          <div className="flex gap-1">
            <dt>Started by</dt>
            <dd>
              {verification.operation !== null ? (
                <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`/operations/${encodeURIComponent(verification.operation)}`}>
                  the end of a failover
                </Link>
              ) : (
                <span>{requesterName(verification.requestedBy)}</span>
              )}
            </dd>
          </div>
        </dl>
        {verification.status === 'running' && canOperate && (
          <button type="button" className={buttonClass('secondary')} onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            {cancel.isPending ? 'Cancelling…' : 'Cancel the verification'}
          </button>
        )}
        {cancel.isError && <ErrorPanel error={cancel.error} title="The verification was not cancelled" compact />}
      </header>
      {verification.status === 'running' && <VerificationProgress verification={verification} />}
      {verification.error !== null && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100">
          <p className="font-semibold">The verification stopped</p>
          <p className="mt-0.5 break-words">{verification.error}</p>
        </div>
      )}
      <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure label="Identical" value={`${totals.identical}/${totals.partitions}`} detail="partitions" />
        <Figure label="Mismatches" value={formatCount(totals.mismatches)} detail={`in ${totals.mismatched} partition${totals.mismatched === 1 ? '' : 's'}`} tone={totals.mismatches > 0 ? 'danger' : 'neutral'} />
        <Figure label="Not compared" value={formatCount(totals.failed)} detail="partitions a side could not be read for" tone={totals.failed > 0 ? 'warning' : 'neutral'} />
        <Figure label="Compared" value={formatBytes(totals.bytes)} detail={`${formatCount(totals.batches)} ${verification.mode === 'bytes' ? 'batches' : 'records'}`} />
      </dl>
      {withMismatches.length > 0 && (
        <Panel title="Mismatches" id="verification-mismatches">
          <div className="space-y-4">
            {withMismatches.map((partition) => (
              <PartitionMismatches key={`${partition.topic}-${partition.partition}`} verification={verification} partition={partition} />
            ))}
          </div>
        </Panel>
      )}
      <Panel title="Partitions" id="verification-partitions">
        <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-700">
          <table className="w-full min-w-[44rem] text-left text-sm">
            <caption className="px-3 py-2 text-left text-xs text-slate-600 dark:text-slate-400">
              Worst first{rows.length > ROWS_SHOWN ? ` (${ROWS_SHOWN} of ${rows.length})` : ''}
            </caption>
            <thead className="bg-slate-50 text-xs text-slate-600 uppercase dark:bg-slate-800 dark:text-slate-300">
              <tr>
                <th scope="col" className="px-3 py-2">Partition</th>
                <th scope="col" className="px-3 py-2">Result</th>
                <th scope="col" className="px-3 py-2">Offsets</th>
                <th scope="col" className="px-3 py-2">Up to where</th>
                <th scope="col" className="px-3 py-2 text-right">Compared</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {rows.slice(0, ROWS_SHOWN).map((partition) => (
                <tr key={`${partition.topic}-${partition.partition}`} data-partition={`${partition.topic}-${partition.partition}`}>
                  <td className="px-3 py-2 font-mono break-all">
                    <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={partitionHref(verification.mirror, partition.topic, partition.partition)}>
                      {partition.topic}-{partition.partition}
                    </Link>
                  </td>
                  <td className="px-3 py-2">
                    <StatusBadge look={PARTITION_VERIFICATION_STATUS_STYLE[partition.status]} />
                  </td>
                  <td className="px-3 py-2 font-mono text-xs tabular-nums">{partition.toOffset > partition.fromOffset ? `${formatOffset(partition.fromOffset)}–${formatOffset(partition.toOffset - 1)}` : 'none'}</td>
                  <td className="px-3 py-2 text-xs break-words">{partition.summary}</td>
                  <td className="px-3 py-2 text-right text-xs tabular-nums">
                    {counted(partition.batches, verification.mode === 'bytes' ? 'batch' : 'record', verification.mode === 'bytes' ? 'batches' : 'records')} · {formatBytes(partition.bytes)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Panel>
    </div>
  )
}

function PartitionMismatches({ verification, partition }: { verification: Verification; partition: VerificationPartition }) {
  return (
    <section aria-label={`Mismatches of ${partition.topic}-${partition.partition}`}>
      <h3 className="text-sm font-semibold">
        <span className="font-mono">
          {partition.topic}-{partition.partition}
        </span>{' '}
        — {partition.summary}
        {partition.mismatchCount > partition.mismatches.length && <span className="font-normal text-slate-600 dark:text-slate-400"> ({partition.mismatches.length} of {formatCount(partition.mismatchCount)} shown)</span>}
      </h3>
      <ul className="mt-1.5 space-y-1.5">
        {partition.mismatches.map((mismatch, index) => (
          <li key={`${mismatch.offset}-${mismatch.kind}-${index}`} className="flex flex-wrap items-baseline gap-x-2 text-sm" data-mismatch={mismatch.offset}>
            <Link prefetch={false} className="font-mono text-indigo-700 underline underline-offset-2 dark:text-indigo-300" href={mismatchHref(verification.mirror, verification.id, partition, mismatch.offset)}>
              offset {formatOffset(mismatch.offset)}
            </Link>
            <span className="rounded bg-red-100 px-1.5 py-px text-xs font-semibold uppercase text-red-900 dark:bg-red-900/70 dark:text-red-100">{mismatch.kind}</span>
            <span className="min-w-0 break-words text-slate-700 dark:text-slate-300">{mismatch.detail}</span>
          </li>
        ))}
      </ul>
    </section>
  )
}
