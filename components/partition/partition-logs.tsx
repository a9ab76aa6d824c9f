'use client'

import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { queryKeys } from '@/components/data/query-keys'
import { useFirstScreenRecords, useLogExtent, useRecords } from '@/components/data/use-records'
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
import { clusterEndpoints } from '@/lib/api/routes'
import type { Mirror, MirrorPartition } from '@/lib/api/mirrors'
import { formatCount, formatOffset } from '@/lib/ui/format'
import { truncationReason } from '@/lib/ui/truncation-reason'
import {
  alignLogs,
  lastWindow,
  logBounds,
  mirroredPosition,
  nextWindow,
  previousWindow,
  recordsRead,
  resolveWindow,
  storyFocus,
  type LaneInput,
  type LogWindowSize,
  type WindowAnchor,
} from '@/lib/ui/log-strip'

/**
 * The source and destination logs of one mirror partition as tapes: reads the window of each log, aligns
 * them, pages, and shows the selected offset in full. The window follows the logs as they grow (the
 * partition's own events say when), and stays put once the operator has moved it.
 */
export function PartitionLogs({
  mirror,
  partition,
  initialSelection,
  initialSize,
  verification = null,
}: {
  mirror: Mirror
  partition: MirrorPartition
  initialSelection: number | null
  initialSize: LogWindowSize
  /** A verification whose mismatches of this partition are drawn on the tapes (`?verification=` on the page). */
  verification?: string | null
}) {
  const { topic } = partition
  const index = partition.partition
  const sourceExtent = useLogExtent(mirror.sourceCluster, topic, index)
  const destinationExtent = useLogExtent(mirror.destinationCluster, topic, index)
  const partitionMirrored = mirroredPosition(partition)
  const [size, setSize] = useState<LogWindowSize>(initialSize)
  const [anchor, setAnchor] = useState<WindowAnchor>(initialSelection === null ? { kind: 'auto' } : { kind: 'around', offset: initialSelection })
  const [selection, setSelection] = useState<StripSelection | null>(initialSelection === null ? null : { offset: initialSelection, lane: 'source' })

  const bounds = logBounds([sourceExtent.data, destinationExtent.data])
  const window = resolveWindow(anchor, size, bounds, storyFocus(partition, size))
  const sourceRead = sourceExtent.data ? recordsRead(window, sourceExtent.data) : null
  const destinationRead = destinationExtent.data ? recordsRead(window, destinationExtent.data) : null
  const sourceRecords = useRecords(mirror.sourceCluster, topic, index, sourceRead)
  const destinationRecords = useRecords(mirror.destinationCluster, topic, index, destinationRead)
  const sourceFirstScreen = useFirstScreenRecords(mirror.sourceCluster, topic, index, sourceRead)
  const destinationFirstScreen = useFirstScreenRecords(mirror.destinationCluster, topic, index, destinationRead)

  useLiveLogs(mirror, partition)
  const verified = useVerification(verification)
  const verifiedPartition = verified.data?.partitions.find((entry) => entry.topic === topic && entry.partition === index)
  const mismatches = mismatchesByOffset(verifiedPartition)

  const lane = (extent: typeof sourceExtent, read: typeof sourceRead, records: typeof sourceRecords, firstScreen: typeof sourceFirstScreen): LaneInput => {
    // The records answer carries the freshest extent; the partitions list is only the way in.
    const known = records.data && !records.isPlaceholderData ? records.data : extent.data
    const extentNow = known ? { logStartOffset: known.logStartOffset, highWatermark: known.highWatermark, logEndOffset: known.logEndOffset } : null
    if (extentNow === null) return { extent: null, records: null }
    if (read === null) return { extent: extentNow, records: [] }
    if (records.data && !records.isPlaceholderData) return { extent: extentNow, records: records.data.records }
    // Until the whole window is read: the first screen the page's HTML carried, the rest loading.
    if (firstScreen !== null) return { extent: extentNow, records: firstScreen.records, recordsEndOffset: firstScreen.endOffset }
    return { extent: extentNow, records: null }
  }
  const sourceLane = lane(sourceExtent, sourceRead, sourceRecords, sourceFirstScreen)
  const destinationLane = lane(destinationExtent, destinationRead, destinationRecords, destinationFirstScreen)
  // Until a failover fixes it, the mirrored position is the destination's high watermark: the log's own answer
  // is fresher than the partition's (refetched at most once a second), so the tapes never contradict themselves.
  const fixed = partition.state === 'STOPPING' || partition.state === 'STOPPED'
  const mirroredOffset = fixed ? partitionMirrored : (destinationLane.extent?.highWatermark ?? partitionMirrored)
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
    { title: `Could not read ${mirror.sourceCluster}'s log`, query: sourceExtent },
    { title: `Could not read ${mirror.sourceCluster}'s records`, query: sourceRecords },
    { title: `Could not read ${mirror.destinationCluster}'s log`, query: destinationExtent },
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
              {formatCount(atRisk.count)} {atRisk.count === 1 ? 'record' : 'records'} {partition.state === 'STOPPED' || partition.state === 'STOPPING' ? 'not mirrored' : 'at risk'}
            </strong>{' '}
            (offsets <span className="font-mono">{formatOffset(atRisk.from)}</span>–<span className="font-mono">{formatOffset(atRisk.to - 1)}</span>): on {mirror.sourceCluster}, beyond the mirrored position{' '}
            <span className="font-mono">{formatOffset(mirroredOffset)}</span>;{' '}
            {partition.state === 'STOPPED' || partition.state === 'STOPPING'
              ? `the failover left them behind: ${mirror.destinationCluster}'s readers never got them.`
              : `lost to ${mirror.destinationCluster}'s readers if the mirror fails over now.`}
          </>
        )}
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
        <Link className="font-medium underline underline-offset-2" href={`/verifications/${encodeURIComponent(verification.id)}`}>
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

/** Engine appends reach no cluster event: the partition's own offsets say when either log moved. */
function useLiveLogs(mirror: Mirror, partition: MirrorPartition) {
  const queryClient = useQueryClient()
  const signature = `${partition.sourceHighWatermark}:${partition.destinationLogEndOffset}:${partition.destinationHighWatermark}:${partition.stateEpoch}`
  const previous = useRef(signature)
  const refresh = useCallback(() => {
    for (const cluster of [mirror.sourceCluster, mirror.destinationCluster]) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listPartitions, { cluster, topic: partition.topic }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.readRecords, { cluster, topic: partition.topic, partition: partition.partition }) })
    }
  }, [queryClient, mirror.sourceCluster, mirror.destinationCluster, partition.topic, partition.partition])
  useEffect(() => {
    if (previous.current === signature) return
    previous.current = signature
    refresh()
  }, [signature, refresh])
}
