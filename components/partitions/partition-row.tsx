'use client'

import Link from 'next/link'
import { memo } from 'react'
import { RelativeTime, useNow } from '@/components/ui/relative-time'
import { StateBadge } from '@/components/ui/state-badge'
import type { MirrorPartition } from '@/lib/api/mirrors'
import { partitionHref } from '@/lib/ui/partition-href'
import { timeLagAt } from '@/lib/mirror/partition-lag'
import { FAILURE_CAUSES, causeOf } from '@/lib/overview/incident'
import { exactTime, formatCount, formatDuration, formatOffset } from '@/lib/ui/format'
import { asOfText, countText, durationText } from '@/lib/ui/lag-text'
import { truncationReason } from '@/lib/ui/truncation-reason'
import { divergenceShort } from '@/lib/ui/divergence-text'
import { buttonClass } from '@/components/ui/button-class'
import { GRID_TEMPLATE, STALE_FETCH_MS } from './partition-columns'
import type { RetryTarget } from './use-retry-partition'

/**
 * One partition: a table row on wide screens, a two-line card on narrow ones (same cells, same semantics).
 * The whole row is the link to the partition page. Memoised on the row object, which the store replaces
 * only when the partition changed, so a tick redraws only the rows it touched.
 */
export const PartitionRowView = memo(function PartitionRowView({
  mirror,
  row,
  rowIndex,
  narrow,
  top,
  height,
  retry,
  retrying,
}: {
  mirror: string
  row: MirrorPartition
  rowIndex: number
  narrow: boolean
  top: number
  height: number
  /** "Retry now" on a FAILED row; null for a viewer. */
  retry: ((target: RetryTarget) => void) | null
  retrying: boolean
}) {
  const cell = narrow ? 'min-w-0' : 'min-w-0 px-3 truncate'
  const numeric = narrow ? '' : 'text-right tabular-nums'
  return (
    <div
      role="row"
      aria-rowindex={rowIndex}
      data-partition={`${row.topic}/${row.partition}`}
      className={`absolute left-0 w-full border-b border-slate-100 text-sm hover:bg-slate-50 focus-within:bg-indigo-50/60 dark:border-slate-800 dark:hover:bg-slate-800/60 dark:focus-within:bg-indigo-950/40 ${
        narrow ? 'grid grid-cols-[1fr_auto] content-center gap-x-3 gap-y-1 px-3' : 'grid items-center'
      }`}
      style={{ transform: `translateY(${top}px)`, height, ...(narrow ? {} : { gridTemplateColumns: GRID_TEMPLATE }) }}
    >
      <div role="cell" className={`${cell} ${narrow ? 'truncate font-medium' : ''}`}>
        <Link
          href={partitionHref(mirror, row.topic, row.partition)}
          prefetch={false}
          className="rounded text-slate-900 after:absolute after:inset-0 after:content-[''] hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-100"
        >
          {row.topic}
          {narrow && <span className="text-slate-500 dark:text-slate-400"> / {row.partition}</span>}
          <span className="sr-only"> partition {row.partition}</span>
        </Link>
      </div>
      {!narrow && (
        <div role="cell" className={`${cell} ${numeric} text-slate-700 dark:text-slate-300`}>
          {row.partition}
        </div>
      )}
      {/* With a Retry now, a FAILED row's cell is two lines: the badge, the button and when the engine retries, then
          why it failed on a line of its own (beside the button it was cut to "source changed · not retried: r…"). */}
      <div role="cell" className={narrow ? 'flex items-center gap-2 justify-self-end' : `min-w-0 px-3 ${retry !== null && row.state === 'FAILED' ? 'flex flex-col justify-center' : ''}`}>
        <span title={row.error ?? undefined} className="flex min-w-0 items-center gap-1.5">
          <StateBadge state={row.state} size="sm" />
          {!narrow && (retry === null || row.state !== 'FAILED') && <StateReason row={row} />}
          {!narrow && retry !== null && row.state === 'FAILED' && (
            <>
              <RetryButton row={row} retry={retry} retrying={retrying} narrow={narrow} />
              <RetryWhen row={row} />
            </>
          )}
        </span>
        {!narrow && retry !== null && row.state === 'FAILED' && <FailureCause row={row} />}
        {narrow && retry !== null && row.state === 'FAILED' && <RetryButton row={row} retry={retry} retrying={retrying} narrow={narrow} />}
      </div>
      <div className={narrow ? 'col-span-2 flex min-w-0 flex-wrap gap-x-3 text-xs text-slate-600 dark:text-slate-300' : 'contents'}>
        {narrow && row.state === 'FAILED' && <StateReason row={row} />}
        <LagCells row={row} cell={cell} numeric={numeric} narrow={narrow} />
        <div role="cell" className={`${cell} ${numeric} text-slate-700 dark:text-slate-300`} title="destination high watermark">
          {narrow && <span className="text-slate-500 dark:text-slate-400">at </span>}
          {formatOffset(row.destinationHighWatermark)}
        </div>
        <div role="cell" className={`${cell} ${numeric}`}>
          {narrow && <span className="text-slate-500 dark:text-slate-400">fetched </span>}
          <Freshness lastFetchAt={row.lastFetchAt} mirroring={row.state === 'MIRRORING'} />
        </div>
        <div role="cell" className={`${cell} ${numeric} text-slate-700 dark:text-slate-300`} title="destination leader epoch">
          {narrow && <span className="text-slate-500 dark:text-slate-400">epoch </span>}
          {row.destinationLeaderEpoch < 0 ? '–' : row.destinationLeaderEpoch}
        </div>
        <div role="cell" className={`${cell} text-slate-700 dark:text-slate-300`}>
          {row.lastTruncation === null ? (
            narrow ? null : (
              <span className="text-slate-500 dark:text-slate-400">–</span>
            )
          ) : (
            <span title={`truncated to offset ${formatOffset(row.lastTruncation.offset)}, ${formatOffset(row.lastTruncation.removedRecords)} records removed (${truncationReason(row.lastTruncation.reason)}) at ${exactTime(row.lastTruncation.at)}`}>
              {narrow && <span className="text-slate-500 dark:text-slate-400">truncated </span>}
              <span className="tabular-nums">to {formatOffset(row.lastTruncation.offset)}</span>
              {row.lastTruncation.removedRecords > 0 && <span className="text-red-700 dark:text-red-300"> −{formatCount(row.lastTruncation.removedRecords)}</span>}{' '}
              <RelativeTime at={row.lastTruncation.at} className="text-xs text-slate-500 dark:text-slate-400" />
            </span>
          )}
        </div>
      </div>
    </div>
  )
})

/** Above the row's link (it covers the row), so a click retries rather than opens the partition. */
function RetryButton({ row, retry, retrying, narrow }: { row: MirrorPartition; retry: (target: RetryTarget) => void; retrying: boolean; narrow: boolean }) {
  return (
    <button
      type="button"
      className={`${buttonClass('secondary', 'sm')} relative shrink-0 ${narrow ? 'order-first py-0.5' : 'py-0 leading-4'}`}
      title={`Retry ${row.topic}-${row.partition} now, not at the engine's next attempt`}
      disabled={retrying}
      onClick={() => retry({ topic: row.topic, partition: row.partition })}
    >
      {retrying ? 'Retrying…' : 'Retry now'}
      <span className="sr-only"> for {row.topic}-{row.partition}</span>
    </button>
  )
}

/** When the engine retries a FAILED partition: "retry in 4 s", "retry due", "not retried: recover". */
function retryText(row: MirrorPartition, now: number): string {
  if (row.retryAttempt === -1) return 'not retried: recover'
  if (row.nextRetryAt === null || row.nextRetryAt === undefined) return `attempt ${row.retryAttempt}`
  if (now === 0 || row.nextRetryAt - now <= 1_000) return 'retry due'
  return `retry in ${formatDuration(Math.ceil((row.nextRetryAt - now) / 1000) * 1000)}`
}

/**
 * Why a FAILED partition failed (lib/overview/incident.ts's causes, as the banner says it); after an unclean
 * election on the source, what diverged and what a truncation would cut. The message itself on hover.
 */
function failureCause(row: MirrorPartition): { said: string; title: string } {
  const cause = FAILURE_CAUSES[causeOf(row.failureCode)].label
  const said = row.divergence != null ? divergenceShort(row.divergence) : cause
  return { said, title: `${row.divergence != null ? `${said}. ` : ''}${row.error ?? cause}; attempt ${row.retryAttempt}` }
}

function RetryWhen({ row }: { row: MirrorPartition }) {
  const now = useNow()
  return (
    <span className="shrink-0 text-xs whitespace-nowrap text-slate-600 tabular-nums dark:text-slate-400" data-testid="failure-retry">
      {retryText(row, now)}
    </span>
  )
}

/** The cause on its own line, under the badge and Retry now. */
function FailureCause({ row }: { row: MirrorPartition }) {
  const { said, title } = failureCause(row)
  return (
    <span className="min-w-0 truncate text-xs text-red-800 dark:text-red-300" data-testid="failure-reason" title={title}>
      {said}
    </span>
  )
}

/** Cause and retry on one line: a viewer's row (no button) and the phone's card. */
function StateReason({ row }: { row: MirrorPartition }) {
  const now = useNow()
  if (row.state !== 'FAILED') return null
  const { said, title } = failureCause(row)
  return (
    <span className="min-w-0 truncate text-xs text-red-800 dark:text-red-300" data-testid="failure-reason" title={title}>
      {said} ·{' '}
      <span className="text-slate-600 tabular-nums dark:text-slate-400" data-testid="failure-retry">
        {retryText(row, now)}
      </span>
    </span>
  )
}

const NO_LAG_STATES = new Set<MirrorPartition['state']>(['STOPPED', 'STOPPING', 'UNKNOWN'])

/**
 * Offset and time lag as lib/mirror/partition-lag.ts reads them: exact while the source answers, "≥ 142" and a time
 * lag still growing while it is silent (with when the source was last read), "–" with the reason for partitions
 * that do not mirror. Never a bare 0 for a FAILED partition whose source cannot be read.
 */
function LagCells({ row, cell, numeric, narrow }: { row: MirrorPartition; cell: string; numeric: string; narrow: boolean }) {
  const now = useNow()
  const lowerBound = row.lagKnown === false && row.offsetLag !== null
  const asOf = lowerBound ? asOfText(false, row.lagAsOf) : ''
  const timeLag = lowerBound && now !== 0 ? timeLagAt(row, now) : row.timeLagMs
  const none = NO_LAG_STATES.has(row.state)
  const missing = none ? 'not mirroring: no lag' : 'unknown: the source never answered'
  return (
    <>
      <div
        role="cell"
        className={`${cell} ${numeric}`}
        data-lower-bound={lowerBound || undefined}
        title={row.offsetLag === null ? missing : `${lowerBound ? 'at least ' : ''}${formatOffset(row.offsetLag)} records${asOf === '' ? '' : `, ${asOf}: the source has not answered since`}`}
      >
        {narrow && <span className="text-slate-500 dark:text-slate-400">lag </span>}
        <span className={row.offsetLag !== null && (row.offsetLag > 0 || lowerBound) ? 'font-medium text-slate-900 dark:text-white' : 'text-slate-500 dark:text-slate-400'}>
          {row.offsetLag === null ? '–' : countText({ value: row.offsetLag, known: !lowerBound })}
        </span>
      </div>
      <div role="cell" className={`${cell} ${numeric} text-slate-700 dark:text-slate-300`} title={timeLag === null ? missing : lowerBound ? `at least ${formatDuration(timeLag)} and growing, ${asOf}` : undefined}>
        {narrow && <span className="text-slate-500 dark:text-slate-400">time </span>}
        {timeLag === null ? '–' : durationText({ value: timeLag, known: !lowerBound })}
      </div>
    </>
  )
}

function Freshness({ lastFetchAt, mirroring }: { lastFetchAt: number | null; mirroring: boolean }) {
  const now = useNow()
  if (lastFetchAt === null) return <span className="text-slate-500 dark:text-slate-400" title="never fetched">never</span>
  if (now === 0) return <span title={exactTime(lastFetchAt)}>–</span>
  const age = Math.max(0, now - lastFetchAt)
  const stale = mirroring && age > STALE_FETCH_MS
  return (
    <span title={`last fetch ${exactTime(lastFetchAt)}`} className={stale ? 'font-medium text-amber-800 dark:text-amber-300' : 'text-slate-700 dark:text-slate-300'}>
      {stale && <span aria-hidden>◷ </span>}
      {formatDuration(Math.floor(age / 1000) * 1000)}
      {stale && <span className="sr-only"> (stale)</span>}
    </span>
  )
}
