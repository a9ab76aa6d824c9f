'use client'

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef } from 'react'
import { partitionSnapshotRequest } from '@/components/partition/queries'
import { endpointKey, endpointQuery } from './endpoint-query'
import { useEventListener } from './event-stream'

/** Read again at most this often however many events arrive. */
const REFRESH_EVERY_MS = 1_000
/**
 * And at least this often while the tab is shown (TanStack Query stops interval reads in a hidden tab): writes to a
 * Kafka source reach no event, and a paused mirror's source is not fetched, yet its records at risk grow.
 */
const POLL_MS = 2_000

/**
 * The partition page's snapshot (GET …/snapshot): the partition, both logs' extents, the mirrored position and
 * the records at risk, all of one moment. Read again when the partition's transitions or lag events arrive, when
 * either cluster announces a change to the topic, and every 2 s while the page is in view.
 */
export function usePartitionSnapshot(mirror: string, topic: string, partition: number, clusters: readonly string[]) {
  const queryClient = useQueryClient()
  const request = partitionSnapshotRequest(mirror, topic, partition)
  const result = useQuery({ ...endpointQuery(request.endpoint, request), refetchInterval: POLL_MS })

  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const refresh = useCallback(() => {
    if (timer.current !== undefined) return
    timer.current = setTimeout(() => {
      timer.current = undefined
      const request = partitionSnapshotRequest(mirror, topic, partition)
      void queryClient.invalidateQueries({ queryKey: endpointKey(request.endpoint, request), exact: true })
    }, REFRESH_EVERY_MS)
  }, [queryClient, mirror, topic, partition])
  useEffect(() => () => clearTimeout(timer.current), [])

  const mine = useCallback((event: { topic?: unknown; partition?: unknown }) => event.topic === topic && event.partition === partition, [topic, partition])
  useEventListener(
    'partition',
    useCallback(
      (data: unknown) => {
        const event = data as { mirror?: unknown; topic?: unknown; partition?: unknown }
        if (event.mirror === mirror && mine(event)) refresh()
      },
      [mirror, mine, refresh],
    ),
  )
  useEventListener(
    'lag',
    useCallback(
      (data: unknown) => {
        const event = data as { mirror?: unknown; partitions?: unknown }
        if (event.mirror === mirror && Array.isArray(event.partitions) && event.partitions.some(mine)) refresh()
      },
      [mirror, mine, refresh],
    ),
  )
  const clusterKey = clusters.join('\n')
  useEventListener(
    'cluster',
    useCallback(
      (data: unknown) => {
        const event = data as { cluster?: unknown; topic?: unknown; partitions?: unknown }
        if (typeof event.cluster !== 'string' || !clusterKey.split('\n').includes(event.cluster)) return
        if (event.topic !== undefined && event.topic !== topic) return
        if (Array.isArray(event.partitions) && !event.partitions.includes(partition)) return
        refresh()
      },
      [clusterKey, topic, partition, refresh],
    ),
  )
  return result
}
