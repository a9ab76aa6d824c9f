'use client'

import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback } from 'react'
import type { RecordsResponse } from '@/lib/api/records'
import type { PartitionList } from '@/lib/api/topics'
import { firstScreenRead, type LogExtent } from '@/lib/ui/log-strip'
import { recordsRequest, topicPartitionsRequest } from '@/components/partition/queries'
import { endpointKey, endpointQuery } from './endpoint-query'
import { queryKeys } from './query-keys'

/** Where a partition's log starts and ends on one cluster (null when the cluster has no such partition). */
/** `refetchMs`: read again on mount and at that interval (a log that an operation is changing under the page). */
export function useLogExtent(cluster: string | undefined, topic: string, partition: number, { refetchMs }: { refetchMs?: number } = {}) {
  const request = topicPartitionsRequest(cluster ?? '', topic)
  const select = useCallback((data: PartitionList): LogExtent | null => {
    const found = data.partitions.find((entry) => entry.partition === partition)
    return found === undefined ? null : { logStartOffset: found.logStartOffset, highWatermark: found.highWatermark, logEndOffset: found.logEndOffset }
  }, [partition])
  return useQuery({ ...endpointQuery(request.endpoint, request), enabled: cluster !== undefined, select, ...(refetchMs === undefined ? {} : { refetchOnMount: 'always' as const, refetchInterval: refetchMs }) })
}

/**
 * One window of a partition's records, control records included (read_uncommitted, as the tape shows every
 * offset). While the next window loads the previous one stays on screen; `isPlaceholderData` says so.
 */
export function useRecords(cluster: string | undefined, topic: string, partition: number, read: { fromOffset: number; limit: number } | null, { refetchMs }: { refetchMs?: number } = {}) {
  const request = recordsRequest(cluster ?? '', topic, partition, read ?? { fromOffset: 0, limit: 1 })
  return useQuery({
    ...endpointQuery(request.endpoint, request),
    enabled: cluster !== undefined && read !== null,
    placeholderData: keepPreviousData,
    ...(refetchMs === undefined ? {} : { refetchOnMount: 'always' as const, refetchInterval: refetchMs }),
  })
}

/**
 * The first screen of a window's records as the server page prefetched them (app/…/partitions/…/page.tsx),
 * shown while the whole window is read; never fetched from here. `endOffset`: the offsets they cover end there.
 */
export function useFirstScreenRecords(cluster: string | undefined, topic: string, partition: number, read: { fromOffset: number; limit: number } | null): { records: RecordsResponse['records']; endOffset: number } | null {
  const queryClient = useQueryClient()
  if (cluster === undefined || read === null) return null
  const first = firstScreenRead(read)
  const request = recordsRequest(cluster, topic, partition, first)
  const data = queryClient.getQueryData(endpointKey(request.endpoint, request))
  return data === undefined ? null : { records: data.records, endOffset: first.fromOffset + first.limit }
}

/**
 * A window of records under the partition page's snapshot: read once per extent of the log (`extent`, the
 * snapshot's), kept while nothing moves, and read again only when the snapshot's log start, high watermark or
 * log end did (no event refetches it: queryKeys.pinned). The previous window stays on screen meanwhile.
 */
export function useSnapshotRecords(cluster: string | undefined, topic: string, partition: number, read: { fromOffset: number; limit: number } | null, extent: LogExtent | null) {
  const request = recordsRequest(cluster ?? '', topic, partition, read ?? { fromOffset: 0, limit: 1 })
  const { queryFn } = endpointQuery(request.endpoint, request)
  const at = extent === null ? {} : { logStartOffset: extent.logStartOffset, highWatermark: extent.highWatermark, logEndOffset: extent.logEndOffset }
  const window = queryKeys.pinned(request.endpoint, request.params, request.query)
  const sameWindow = JSON.stringify(window)
  return useQuery({
    queryKey: [...window, at] as const,
    queryFn,
    enabled: cluster !== undefined && read !== null && extent !== null,
    staleTime: Number.POSITIVE_INFINITY,
    // The same window's records of the previous extent stay on screen while the log moved on; another window's
    // would paint offsets they do not cover as empty, so those show as loading instead.
    placeholderData: (previous, previousQuery) => (previousQuery !== undefined && JSON.stringify(previousQuery.queryKey.slice(0, 3)) === sameWindow ? previous : undefined),
  })
}
