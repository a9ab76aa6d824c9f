'use client'

import Link from 'next/link'
import type { ReactNode } from 'react'
import { RelativeTime } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import type { Mirror } from '@/lib/api/mirrors'
import type { PartitionSnapshot } from '@/lib/api/partition-snapshot'
import { clockTime, exactTime, formatCount, formatOffset } from '@/lib/ui/format'
import { asOfText, countText, durationText } from '@/lib/ui/lag-text'
import { truncationReason } from '@/lib/ui/truncation-reason'
import { divergenceLong, type DivergenceFigures } from '@/lib/ui/divergence-text'
import { STATE_METADATA } from '@/lib/mirror/state-metadata'
import { votedKipName } from '@/lib/ui/state-style'
import { PartitionActions } from './partition-actions'

/**
 * Who, what state since when, how far behind, and the positions that matter for a failover or failback: every
 * figure from the page's one snapshot (lib/mirror/partition-snapshot.ts), stamped with its moment, so they agree
 * with the log tapes below and with the failover plan.
 */
export function PartitionHeader({
  mirror,
  snapshot,
  refreshError = null,
}: {
  mirror: Mirror
  snapshot: PartitionSnapshot
  /** The last read again failed: the figures shown are the previous snapshot's, and say so. */
  refreshError?: Error | null
}) {
  const partition = snapshot.partition
  const topicPartitions = snapshot.topicPartitions
  const mirrorHref = `/mirrors/${encodeURIComponent(mirror.name)}`
  const truncation = partition.lastTruncation
  const sourceHw = snapshot.source?.highWatermark ?? partition.sourceHighWatermark
  const destinationHw = snapshot.destination?.highWatermark ?? partition.destinationHighWatermark
  const stopped = partition.state === 'STOPPING' || partition.state === 'STOPPED'
  const { offsetLag, offsetLagKnown, timeLagMs: timeLag, timeLagKnown, atRisk } = snapshot
  // Read from the logs when the source answered: while the mirror does not fetch (paused, failed) that is the only current figure.
  const lagFromLogs = snapshot.source !== null && partition.lagKnown === false && offsetLag !== null
  const asOf = asOfText(offsetLagKnown, partition.lagAsOf)
  const position = partition.lastMirrorPosition
  return (
    <header className="flex flex-col gap-4">
      <nav aria-label="Breadcrumb" className="text-sm text-slate-600 dark:text-slate-300">
        <ol className="flex flex-wrap items-center gap-1">
          <li>
            <Link prefetch={false} href="/" className="rounded hover:text-slate-900 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:text-white">
              Overview
            </Link>
          </li>
          <li aria-hidden>/</li>
          <li>
            <Link prefetch={false} href={mirrorHref} className="rounded hover:text-slate-900 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:text-white">
              mirror {mirror.name}
            </Link>
          </li>
          <li aria-hidden>/</li>
          <li aria-current="page" className="text-slate-900 dark:text-white">
            {partition.topic} / {partition.partition}
          </li>
        </ol>
      </nav>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h1 className="break-words text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">
            <span className="text-slate-500 dark:text-slate-400">{mirror.name} / </span>
            {partition.topic} / {partition.partition}
          </h1>
          <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-300">
            <Link prefetch={false} href={`/clusters/${encodeURIComponent(mirror.sourceCluster)}`} className="font-medium hover:underline">
              {mirror.sourceCluster}
            </Link>{' '}
            <span aria-hidden>→</span>
            <span className="sr-only">mirrored to</span>{' '}
            <Link prefetch={false} href={`/clusters/${encodeURIComponent(mirror.destinationCluster)}`} className="font-medium hover:underline">
              {mirror.destinationCluster}
            </Link>
            {/* Several instances share the work: which one runs this mirror (as on the mirror page). */}
            {mirror.owner != null && (
              <span data-testid="mirror-owner">
                {' · '}Runs on{' '}
                <Link prefetch={false} href="/instances" className="font-mono break-all text-indigo-700 hover:underline dark:text-indigo-300">
                  {mirror.owner}
                </Link>
              </span>
            )}
          </p>
          <p className="mt-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-700 dark:text-slate-200">
            <StateBadge state={partition.state} />
            <span>
              since{' '}
              <time dateTime={exactTime(partition.stateSince)} title={exactTime(partition.stateSince)} className="font-mono">
                {clockTime(partition.stateSince)}
              </time>{' '}
              (<RelativeTime at={partition.stateSince} />)
            </span>
            <span className="text-slate-500 dark:text-slate-400">{STATE_METADATA[partition.state].description}</span>
            {votedKipName(partition.state) !== null && (
              <span className="text-slate-500 dark:text-slate-400" data-testid="kip-state-name">
                KIP-1279: <span className="font-mono">{votedKipName(partition.state)}</span>
              </span>
            )}
          </p>
          {partition.state === 'FAILED' && (
            <p className="mt-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100">
              <span className="font-semibold">Failed in {partition.previousState ?? 'UNKNOWN'}:</span> {partition.error ?? 'no message'}
              {' · '}
              {partition.retryAttempt === -1 ? 'not retryable, recover it by hand' : `attempt ${partition.retryAttempt}, retrying with backoff`}
              {partition.divergence != null && <DivergenceAccount divergence={partition.divergence} />}
              {partition.stateDurable === false && (
                <span className="mt-1 block">
                  <span className="font-semibold">Not saved yet:</span> the destination cannot store the mirror state right now. A server restart would resume from
                  the last saved state, and commands on this partition are refused until this one is saved.
                </span>
              )}
            </p>
          )}
        </div>
        <PartitionActions mirror={mirror.name} topic={partition.topic} partition={partition.partition} state={partition.state} topicPartitions={topicPartitions} />
      </div>
      <p className="-mb-2 text-xs text-slate-500 dark:text-slate-400">
        <span data-testid="partition-as-of" className="whitespace-nowrap">
          Figures as of{' '}
          <time dateTime={exactTime(snapshot.at)} title={exactTime(snapshot.at)} className="font-mono text-slate-700 dark:text-slate-200">
            {clockTime(snapshot.at)}
          </time>{' '}
          UTC
        </span>
        {': '}
        {snapshot.source === null ? `${mirror.sourceCluster} did not answer, so the figures are lower bounds from the last fetch` : 'both logs read together, as the failover plan reads them'}
        {refreshError !== null && (
          <span role="status" className="text-amber-800 dark:text-amber-300">
            {' '}
            · not refreshed: {refreshError.message}
          </span>
        )}
      </p>
      <dl className="grid grid-cols-2 gap-px overflow-hidden rounded-lg border border-slate-200 bg-slate-200 text-sm sm:grid-cols-4 lg:grid-cols-8 dark:border-slate-800 dark:bg-slate-800">
        <Figure
          label="Offset lag"
          title={
            offsetLag === null
              ? stopped
                ? 'not mirroring: the mirror was failed over'
                : 'unknown: the source could not be read'
              : `${offsetLagKnown ? '' : 'at least '}${offsetLag} records${lagFromLogs ? ', read from the logs: the mirror is not fetching' : asOf === '' ? '' : `, ${asOf}`}`
          }
        >
          <span>{offsetLag === null ? (stopped ? 'stopped' : '–') : `${countText({ value: offsetLag, known: offsetLagKnown })} ${offsetLag === 1 ? 'record' : 'records'}`}</span>
          {lagFromLogs && <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">from the logs</span>}
          {!offsetLagKnown && asOf !== '' && <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">{asOf}</span>}
        </Figure>
        <Figure label="Time lag" title={timeLag === null ? 'unknown' : `${timeLagKnown ? '' : 'at least '}${timeLag} ms${timeLagKnown ? '' : ', growing while the source is not fetched'}`}>
          {timeLag === null ? (stopped ? 'stopped' : '–') : durationText({ value: timeLag, known: timeLagKnown })}
        </Figure>
        <Figure
          label="At risk if failed over now"
          title={atRisk === null ? (stopped ? 'failed over: nothing more is lost' : undefined) : 'The same function as the failover plan and the mirror page (lib/mirror/at-risk.ts)'}
        >
          <span data-testid="partition-at-risk">
            {atRisk === null ? (stopped ? 'nothing: failed over' : '–') : `${countText({ value: atRisk.records, known: atRisk.known })} ${atRisk.records === 1 ? 'record' : 'records'}`}
          </span>
          {atRisk !== null && !atRisk.known && atRisk.asOf !== null && (
            <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">{asOfText(false, atRisk.asOf)}</span>
          )}
        </Figure>
        <Figure label="High watermarks" title={`source high watermark ${sourceHw ?? 'unknown'}, destination high watermark ${destinationHw}, destination log end ${snapshot.destination?.logEndOffset ?? partition.destinationLogEndOffset}`}>
          <span className="font-mono">
            {sourceHw === null ? '–' : formatOffset(sourceHw)} → {formatOffset(destinationHw)}
          </span>
          <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">source → destination</span>
        </Figure>
        <Figure label="Leader epoch" title="The destination's leader epoch: above every mirrored batch's epoch">
          <span className="font-mono">{partition.destinationLeaderEpoch}</span>
        </Figure>
        <Figure label="Last mirror position" title="Recorded by the last STOPPING: (leader epoch, offset), what a failback truncates to">
          {position === null ? <span className="text-slate-500 dark:text-slate-400">none</span> : <span className="font-mono">epoch {position.epoch}, offset {formatOffset(position.offset)}</span>}
        </Figure>
        <Figure label="Last truncation" title={truncation === null ? undefined : `${truncationReason(truncation.reason)}, ${exactTime(truncation.at)}`}>
          {truncation === null ? (
            <span className="text-slate-500 dark:text-slate-400">never</span>
          ) : truncation.removedRecords === 0 ? (
            <span>
              <span className="text-slate-600 dark:text-slate-300">nothing removed</span> · started at <span className="font-mono">{formatOffset(truncation.offset)}</span> ({truncationReason(truncation.reason, 'short')})
            </span>
          ) : (
            <span>
              <span className="font-mono">✂ {formatOffset(truncation.offset)}</span>, {formatCount(truncation.removedRecords)} removed ·{' '}
              <span className="text-slate-600 dark:text-slate-300">{truncationReason(truncation.reason, 'short')}</span> · <RelativeTime at={truncation.at} />
            </span>
          )}
        </Figure>
        <Figure label="Last fetch">{partition.lastFetchAt === null ? <span className="text-slate-500 dark:text-slate-400">never</span> : <RelativeTime at={partition.lastFetchAt} />}</Figure>
      </dl>
    </header>
  )
}

/** What diverged after an unclean leader election on the source, and what a truncation would cut (KIP-1279.md §3.5). */
function DivergenceAccount({ divergence }: { divergence: DivergenceFigures }) {
  const { what, cut, next } = divergenceLong(divergence)
  return (
    <span className="mt-1 block" data-testid="divergence">
      <span className="font-semibold">Diverged at epoch {divergence.epoch}, offset {formatOffset(divergence.offset)}:</span> {what} {cut} {next}
    </span>
  )
}

/** `wide`: the last of an odd count, spanning both columns on phones rather than leaving a hole. */
function Figure({ label, title, wide = false, children }: { label: string; title?: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={`min-w-0 bg-white px-3 py-2 dark:bg-slate-900 ${wide ? 'col-span-2 sm:col-span-1' : ''}`} title={title}>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-0.5 break-words font-medium text-slate-900 dark:text-slate-100">{children}</dd>
    </div>
  )
}
