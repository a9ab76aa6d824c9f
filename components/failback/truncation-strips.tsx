'use client'

import { useState } from 'react'
import { useLogExtent, useRecords } from '@/components/data/use-records'
import { LogStrips, LogStripsLegend, type LaneName, type StripSelection } from '@/components/log/log-strips'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { alignLogs, logBounds, recordsRead, windowAround } from '@/lib/ui/log-strip'
import { formatCount, formatOffset } from '@/lib/ui/format'

const WINDOW = 50
const LIVE_REFETCH_MS = 2_000

/**
 * One partition's failback on the tapes: the new source (the failover's destination) above, the old source
 * below, with the truncation cut where the old source's log is cut back (before the failback: the records
 * right of it go; after: both tapes agree offset by offset).
 */
export function TruncationStrips({
  topic,
  partition,
  newSource,
  oldSource,
  truncation,
  live = false,
}: {
  topic: string
  partition: number
  newSource: string
  oldSource: string
  truncation: { offset: number; removedRecords: number } | null
  /**
   * After the failback: the old source's log as it is now, read again (on mount and every 2 s), not the dry run's
   * records under the same query (the last step showed the removed records beside "the logs match" until a reload).
   */
  live?: boolean
}) {
  const [selection, setSelection] = useState<StripSelection | null>(null)
  const refresh = live ? { refetchMs: LIVE_REFETCH_MS } : {}
  const upper = useLogExtent(newSource, topic, partition, refresh)
  const lower = useLogExtent(oldSource, topic, partition, refresh)
  const bounds = logBounds([upper.data, lower.data])
  const window = windowAround(truncation?.offset ?? bounds.start, WINDOW, bounds)
  const upperRecords = useRecords(newSource, topic, partition, upper.data ? recordsRead(window, upper.data) : null, refresh)
  const lowerRecords = useRecords(oldSource, topic, partition, lower.data ? recordsRead(window, lower.data) : null, refresh)
  const failure = upper.error ?? lower.error ?? upperRecords.error ?? lowerRecords.error
  if (failure) return <ErrorPanel error={failure} title={`Could not read the logs of ${topic}-${partition}`} compact onRetry={() => [upper, lower, upperRecords, lowerRecords].forEach((query) => void query.refetch())} />
  if (upper.isPending || lower.isPending) return <Skeleton className="h-24 w-full" />
  const names: Record<'source' | 'destination', LaneName> = { source: { title: 'new source', short: 'new', cluster: newSource }, destination: { title: 'old source', short: 'old', cluster: oldSource } }
  const aligned = alignLogs({
    window,
    source: { extent: upper.data ?? null, records: upperRecords.data?.records ?? (upper.data && recordsRead(window, upper.data) === null ? [] : null) },
    destination: { extent: lower.data ?? null, records: lowerRecords.data?.records ?? (lower.data && recordsRead(window, lower.data) === null ? [] : null) },
    mirroredOffset: null,
    truncation,
  })
  return (
    <figure className="space-y-2" data-testid={`truncation-strips-${topic}-${partition}`}>
      <figcaption className="text-sm">
        <span className="font-mono">
          {topic}-{partition}
        </span>
        {truncation === null ? (
          ' · no truncation'
        ) : (
          <>
            {' '}
            · truncation point <span className="font-mono font-semibold">{formatOffset(truncation.offset)}</span>, {formatCount(truncation.removedRecords)} records removed from the old source
          </>
        )}
      </figcaption>
      <LogStrips
        aligned={aligned}
        names={names}
        selection={selection}
        onSelect={setSelection}
        openAt={selection === null ? (truncation?.offset ?? null) : null}
        label={`Logs of ${topic} partition ${partition}: new source ${newSource} above, old source ${oldSource} below, one column per offset`}
      />
      <LogStripsLegend atRiskCount={null} />
    </figure>
  )
}
