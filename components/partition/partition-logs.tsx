'use client'

import { useDeferredValue, useMemo, useState } from 'react'
import { useFirstScreenRecords, useSnapshotRecords } from '@/components/data/use-records'
import { useVerification } from '@/components/data/use-verifications'
import { buttonClass } from '@/components/ui/button-class'
import Link from 'next/link'
import type { Verification, VerificationPartition } from '@/lib/api/verifications'
import { VERIFICATION_STATUS_STYLE } from '@/lib/ui/status-style'
import { mismatchesByOffset } from '@/lib/ui/verification-view'
import { LogPaging } from '@/components/log/log-paging'
import { LogStrips, LogStripsLegend, type LaneId, type LaneName, type StripSelection } from '@/components/log/log-strips'
import { RecordDetails } from '@/components/log/record-details'
import { ErrorPanel } from '@/components/ui/error-panel'
import type { Mirror } from '@/lib/api/mirrors'
import type { PartitionSnapshot } from '@/lib/api/partition-snapshot'
import type { RecordsResponse } from '@/lib/api/records'
import { clockTime, formatCount, formatOffset } from '@/lib/ui/format'
import { truncationReason } from '@/lib/ui/truncation-reason'
import {
  alignLogs,
  lastWindow,
  logBounds,
  nextWindow,
  previousWindow,
  recordsRead,
  resolveWindow,
  storyFocus,
  type LaneInput,
  type LogExtent,
  type LogWindowSize,
  type WindowAnchor,
} from '@/lib/ui/log-strip'

/**
 * The source and destination logs of one mirror partition as tapes: reads the window of each log, aligns
 * them, pages, and shows the selected offset in full. Every boundary (log start, high watermark, log end, the
 * mirrored position and so the at-risk range) is the page's snapshot's, the very reading the header's figures
 * come from; the records fill the window and are read again only where the snapshot's readable end of their log
 * moved inside it, or the log was cut (components/data/use-records.ts).
 * The window follows the logs as they grow, and stays put once the operator has moved it.
 */
export function PartitionLogs({
  mirror,
  snapshot,
  initialSelection,
  initialSize,
  verification = null,
  phone = false,
}: {
  mirror: Mirror
  snapshot: PartitionSnapshot
  initialSelection: number | null
  initialSize: LogWindowSize
  /** A verification whose mismatches of this partition are drawn on the tapes (`?verification=` on the page). */
  verification?: string | null
  /** The server's guess that the screen is a phone's: the tapes' first render at its width. */
  phone?: boolean
}) {
  const partition = snapshot.partition
  const { topic } = partition
  const index = partition.partition
  const [size, setSize] = useState<LogWindowSize>(initialSize)
  const [anchor, setAnchor] = useState<WindowAnchor>(initialSelection === null ? { kind: 'auto' } : { kind: 'around', offset: initialSelection })
  const [selection, setSelection] = useState<StripSelection | null>(initialSelection === null ? null : { offset: initialSelection, lane: 'source' })

  const bounds = logBounds([snapshot.source, snapshot.destination])
  const window = resolveWindow(anchor, size, bounds, storyFocus(partition, size))
  const sourceRead = snapshot.source ? recordsRead(window, snapshot.source) : null
  const destinationRead = snapshot.destination ? recordsRead(window, snapshot.destination) : null
  const sourceRecords = useSnapshotRecords(mirror.sourceCluster, topic, index, sourceRead, snapshot.source)
  const destinationRecords = useSnapshotRecords(mirror.destinationCluster, topic, index, destinationRead, snapshot.destination, partition.lastTruncation?.at ?? null)

  const verified = useVerification(verification)
  const verifiedPartition = verified.data?.partitions.find((entry) => entry.topic === topic && entry.partition === index)
  const mismatches = mismatchesByOffset(verifiedPartition)

  const sourceShown = useShownRecords(sourceRead, sourceRecords)
  const destinationShown = useShownRecords(destinationRead, destinationRecords)
  // What the tapes show (deferred), not the query: the first screen stays until a whole window is on screen.
  const sourceFirstScreen = useFirstScreenRecords(mirror.sourceCluster, topic, index, sourceRead, sourceShown.data !== undefined && !sourceShown.isPlaceholderData)
  const destinationFirstScreen = useFirstScreenRecords(mirror.destinationCluster, topic, index, destinationRead, destinationShown.data !== undefined && !destinationShown.isPlaceholderData)
  const sourceLane = snapshotLane(snapshot.source, sourceRead, sourceShown, sourceFirstScreen)
  const destinationLane = snapshotLane(snapshot.destination, destinationRead, destinationShown, destinationFirstScreen)
  const mirroredOffset = snapshot.mirroredOffset
  // A start from scratch records a truncation that removed nothing: no cut to show.
  const truncation = partition.lastTruncation !== null && partition.lastTruncation.removedRecords > 0 ? partition.lastTruncation : null
  // Cheap even for 1,000 offsets; the cells compare what they show, so an unchanged cell does not re-render.
  const aligned = alignLogs({
    window,
    source: sourceLane,
    destination: destinationLane,
    mirroredOffset,
    truncation: truncation === null ? null : { offset: truncation.offset, removedRecords: truncation.removedRecords },
  })

  const names: Record<LaneId, LaneName> = {
    source: { title: 'source', short: 'src', cluster: mirror.sourceCluster },
    destination: { title: 'destination', short: 'dest', cluster: mirror.destinationCluster },
  }
  const errors = [
    { title: `Could not read ${mirror.sourceCluster}'s records`, query: sourceRecords },
    { title: `Could not read ${mirror.destinationCluster}'s records`, query: destinationRecords },
  ].filter(({ query }) => query.isError)
  const jump = (offset: number, lane: LaneId = 'source') => {
    setAnchor({ kind: 'around', offset })
    setSelection({ offset, lane })
  }
  const selectedColumn = selection === null ? null : (aligned.columns.find((column) => column.offset === selection.offset) ?? null)
  const atRisk = aligned.atRisk
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-slate-700 dark:text-slate-200">
        {atRisk === null ? (
          <>The destination holds every record of the source up to offset <span className="font-mono">{formatOffset(mirroredOffset)}</span>: nothing is at risk.</>
        ) : (
          <>
            <strong className="font-semibold text-amber-900 dark:text-amber-200">
              <span data-testid="strip-at-risk">{formatCount(atRisk.count)}</span> {atRisk.count === 1 ? 'record' : 'records'}{' '}
              {partition.state === 'STOPPED' || partition.state === 'STOPPING' ? 'not mirrored' : 'at risk'}
            </strong>{' '}
            (offsets <span className="font-mono">{formatOffset(atRisk.from)}</span>–<span className="font-mono">{formatOffset(atRisk.to - 1)}</span>): on {mirror.sourceCluster}, beyond the mirrored position{' '}
            <span className="font-mono">{formatOffset(mirroredOffset)}</span>;{' '}
            {partition.state === 'STOPPED' || partition.state === 'STOPPING'
              ? `the failover left them behind: ${mirror.destinationCluster}'s readers never got them.`
              : `lost to ${mirror.destinationCluster}'s readers if the mirror fails over now.`}
          </>
        )}
        <span className="text-slate-500 dark:text-slate-400" data-testid="strip-as-of">
          {' '}
          (as of <span className="font-mono">{clockTime(snapshot.at)}</span> UTC)
        </span>
        {truncation !== null && (
          <>
            {' '}
            Last truncation cut {mirror.destinationCluster}&apos;s log at <span className="font-mono">{formatOffset(truncation.offset)}</span>, removing {formatCount(truncation.removedRecords)}{' '}
            {truncation.removedRecords === 1 ? 'record' : 'records'} ({truncationReason(truncation.reason)}).
          </>
        )}
      </p>
      <LogPaging
        window={window}
        bounds={bounds}
        truncationOffset={truncation?.offset ?? null}
        mirroredOffset={mirroredOffset}
        onStart={() => setAnchor({ kind: 'from', from: bounds.start })}
        onPrevious={() => setAnchor({ kind: 'from', from: previousWindow(window, bounds).from })}
        onNext={() => {
          const next = nextWindow(window, bounds)
          setAnchor(next.from === lastWindow(size, bounds).from ? { kind: 'end' } : { kind: 'from', from: next.from })
        }}
        onEnd={() => setAnchor({ kind: 'end' })}
        onJump={(offset) => jump(offset, truncation !== null && offset === truncation.offset ? 'destination' : 'source')}
        onSize={(next) => {
          setSize(next)
          if (selection !== null) setAnchor({ kind: 'around', offset: selection.offset })
        }}
      />
      {errors.map(({ title, query }) => (
        <ErrorPanel key={title} title={title} error={query.error} onRetry={() => void query.refetch()} compact />
      ))}
      {verification !== null && verified.isError && <ErrorPanel title={`Could not read verification ${verification}`} error={verified.error} onRetry={() => void verified.refetch()} compact />}
      {verified.data !== undefined && (
        <VerificationNote verification={verified.data} partition={verifiedPartition} onJump={(offset) => jump(offset, 'destination')} />
      )}
      <LogStrips
        mismatches={mismatches}
        phone={phone}
        aligned={aligned}
        names={names}
        selection={selection}
        onSelect={setSelection}
        openAt={anchor.kind === 'auto' && selection === null ? storyFocus(partition, size) : null}
        label={`Logs of ${topic} partition ${index}: ${mirror.sourceCluster} above, ${mirror.destinationCluster} below, one column per offset`}
      />
      <LogStripsLegend atRiskCount={atRisk?.count ?? null} />
      <div className="border-t border-slate-100 pt-3 dark:border-slate-800">
        <RecordDetails column={selectedColumn} names={names} mirroredOffset={mirroredOffset} />
      </div>
    </div>
  )
}

/** What a verification found on this partition, above the tapes: its verdict and each mismatch to jump to. */
function VerificationNote({ verification, partition, onJump }: { verification: Verification; partition: VerificationPartition | undefined; onJump: (offset: number) => void }) {
  const offsets = [...new Set(partition?.mismatches.map((mismatch) => mismatch.offset) ?? [])]
  const bad = offsets.length > 0
  return (
    <div
      role="note"
      className={`rounded-md border px-3 py-2 text-sm ${bad ? 'border-red-200 bg-red-50 text-red-950 dark:border-red-900 dark:bg-red-950/50 dark:text-red-100' : 'border-slate-200 bg-slate-50 text-slate-800 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-200'}`}
    >
      <p>
        <Link prefetch={false} className="font-medium underline underline-offset-2" href={`/verifications/${encodeURIComponent(verification.id)}`}>
          Verification {verification.id}
        </Link>{' '}
        ({VERIFICATION_STATUS_STYLE[verification.status].label.toLowerCase()}): {partition === undefined ? 'this partition was not part of it.' : `${partition.summary}.`}
        {bad && ' Differences are marked ≠ on the destination tape:'}
      </p>
      {bad && (
        <ul className="mt-1.5 flex flex-wrap gap-1.5">
          {offsets.slice(0, 20).map((offset) => (
            <li key={offset}>
              <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => onJump(offset)}>
                ≠ offset {formatOffset(offset)}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

/**
 * A window's records as the tapes show them: new answers for the same window arrive as a transition. TanStack Query
 * tells its observers synchronously, and a window's first answer (hundreds of cells drawn at once) or a moved end
 * had been one blocking render of both tapes, seconds at a phone's speed; deferred, React renders the cells in
 * slices and yields between them. Another window (the reader paged) is shown at once, never the previous window's
 * records as this one's.
 */
function useShownRecords(read: { fromOffset: number; limit: number } | null, records: { data?: RecordsResponse; isPlaceholderData: boolean }): { data?: RecordsResponse; isPlaceholderData: boolean } {
  const key = read === null ? '' : `${read.fromOffset}:${read.limit}`
  const { data, isPlaceholderData } = records
  const current = useMemo(() => ({ key, data, isPlaceholderData }), [key, data, isPlaceholderData])
  const deferred = useDeferredValue(current)
  return deferred.key === key ? deferred : current
}

/**
 * One tape's input: the snapshot's extent, and the records of the window cut to it (a read made after the snapshot
 * may already hold later records; the tapes show the snapshot's moment). Until the whole window is read, the first
 * screen the page's HTML carried, the rest loading.
 */
function snapshotLane(
  extent: LogExtent | null,
  read: { fromOffset: number; limit: number } | null,
  records: { data?: RecordsResponse; isPlaceholderData: boolean },
  firstScreen: { records: RecordsResponse['records']; fromOffset: number; endOffset: number } | null,
): LaneInput {
  if (extent === null) return { extent: null, records: null }
  if (read === null) return { extent, records: [] }
  const within = (list: RecordsResponse['records']) => list.filter((record) => record.offset < extent.logEndOffset)
  if (records.data !== undefined && !records.isPlaceholderData) return { extent, records: within(records.data.records) }
  if (firstScreen !== null) return { extent, records: within(firstScreen.records), recordsFromOffset: firstScreen.fromOffset, recordsEndOffset: firstScreen.endOffset }
  // The previous window's records while this one loads: the offsets they do not cover read as loading.
  if (records.data !== undefined) return { extent, records: within(records.data.records), recordsEndOffset: Math.min(records.data.logEndOffset, read.fromOffset + read.limit) }
  return { extent, records: null }
}
