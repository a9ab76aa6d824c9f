'use client'

import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useState } from 'react'
import type { RecordsResponse } from '@/lib/api/records'
import type { PartitionList } from '@/lib/api/topics'
import { FIRST_SCREEN_OFFSETS, type LogExtent } from '@/lib/ui/log-strip'
import { joinTail, tailRead } from '@/lib/ui/record-window'
import { recordsRequest, topicPartitionsRequest } from '@/components/partition/queries'
import { endpointQuery } from './endpoint-query'
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
 * The first screen of a window's records as the server page prefetched them (app/…/partitions/…/page.tsx: around
 * the point the tape opens at), shown while the whole window is read; never fetched from here. Found by what it
 * covers rather than by recomputing the server's read: the story point it was read around moves with every
 * snapshot. `fromOffset`, `endOffset`: the offsets it covers. Spent once the lane has had a whole window
 * (`windowRead`): a later window that still holds those offsets reads them again (the log may have been cut since).
 */
export function useFirstScreenRecords(
  cluster: string | undefined,
  topic: string,
  partition: number,
  read: { fromOffset: number; limit: number } | null,
  windowRead: boolean,
): { records: RecordsResponse['records']; fromOffset: number; endOffset: number } | null {
  const queryClient = useQueryClient()
  const [spent, setSpent] = useState(false)
  if (windowRead && !spent) setSpent(true)
  if (spent || windowRead || cluster === undefined || read === null) return null
  const { endpoint, params } = recordsRequest(cluster, topic, partition, read)
  for (const [key, data] of queryClient.getQueriesData<RecordsResponse>({ queryKey: queryKeys.of(endpoint, params) })) {
    const query = key[2] as { fromOffset?: unknown; limit?: unknown } | undefined
    if (data === undefined || typeof query?.fromOffset !== 'number' || typeof query.limit !== 'number' || query.limit > FIRST_SCREEN_OFFSETS) continue
    if (query.fromOffset >= read.fromOffset && query.fromOffset + query.limit <= read.fromOffset + read.limit) return { records: data.records, fromOffset: query.fromOffset, endOffset: query.fromOffset + query.limit }
  }
  return null
}

/**
 * A window of records under the partition page's snapshot (`extent`, the snapshot's extent of that log). Its records
 * can change only where the log's readable end (high watermark) moved inside the window, or when the log was cut
 * (its end went back: a new `generation`, counted here, or a new truncation of the partition, `cutAt`); so the
 * key holds that clipped end, not the whole extent, and a window away from the log's end is read once however the
 * log grows. A moving end window reads only its new tail (lib/ui/record-window.ts) and keeps the earlier records'
 * objects, so the tape's cells that show them do not re-render. No structural sharing: comparing ~1,000 records
 * deeply on every read was the long task. No event refetches it (queryKeys.pinned); the previous window stays on
 * screen meanwhile.
 */
export function useSnapshotRecords(
  cluster: string | undefined,
  topic: string,
  partition: number,
  read: { fromOffset: number; limit: number } | null,
  extent: LogExtent | null,
  cutAt: number | null = null,
) {
  const queryClient = useQueryClient()
  const request = recordsRequest(cluster ?? '', topic, partition, read ?? { fromOffset: 0, limit: 1 })
  const { queryFn } = endpointQuery(request.endpoint, request)
  const generation = useLogGeneration(extent)
  const end = extent === null || read === null ? 0 : Math.min(read.fromOffset + read.limit, extent.highWatermark)
  const history = { generation, cutAt }
  const family = [queryKeys.pinned(request.endpoint, request.params)[0], request.params] as const
  const window = queryKeys.pinned(request.endpoint, request.params, request.query)
  const sameWindow = JSON.stringify(window)
  const sameHistory = JSON.stringify(history)
  return useQuery({
    queryKey: [...window, { end, ...history }] as const,
    queryFn: async ({ signal }): Promise<RecordsResponse> => {
      if (read === null) return queryFn({ signal })
      const earlier = queryClient
        .getQueriesData<RecordsResponse>({ queryKey: family })
        .flatMap(([key, data]) => {
          const [, , query, at] = key as readonly [string, unknown, { fromOffset: number; limit: number }, { generation: number; cutAt: number | null }]
          return data !== undefined && at !== undefined && JSON.stringify({ generation: at.generation, cutAt: at.cutAt }) === sameHistory ? [{ read: query, records: data.records, nextOffset: data.nextOffset, data }] : []
        })
      const tail = tailRead(read, end, earlier)
      if (tail === null) return queryFn({ signal })
      const base = tail.earlier.data
      if (tail.from === null) return { ...base, records: [...tail.kept], nextOffset: Math.min(base.nextOffset, read.fromOffset + read.limit) }
      const tailRequest = recordsRequest(cluster ?? '', topic, partition, { fromOffset: tail.from, limit: tail.limit })
      const answer = await endpointQuery(tailRequest.endpoint, tailRequest).queryFn({ signal })
      const records = joinTail(read, tail, answer.records)
      return records === null ? queryFn({ signal }) : { ...answer, records }
    },
    enabled: cluster !== undefined && read !== null && extent !== null,
    staleTime: Number.POSITIVE_INFINITY,
    // A moved end window's key is left behind every second or two: the latest one is all a tail read needs.
    gcTime: 60_000,
    structuralSharing: false,
    // The same window's records of the previous extent stay on screen while the log moved on; another window's
    // would paint offsets they do not cover as empty, so those show as loading instead.
    placeholderData: (previous, previousQuery) => (previousQuery !== undefined && JSON.stringify(previousQuery.queryKey.slice(0, 3)) === sameWindow ? previous : undefined),
  })
}

/** Counts the times a log's end went back (a truncation): records read before and after are of different histories. */
function useLogGeneration(extent: LogExtent | null): number {
  const [seen, setSeen] = useState({ end: extent?.logEndOffset ?? 0, generation: 0 })
  if (extent !== null && extent.logEndOffset !== seen.end) {
    const next = { end: extent.logEndOffset, generation: extent.logEndOffset < seen.end ? seen.generation + 1 : seen.generation }
    setSeen(next)
    return next.generation
  }
  return seen.generation
}
