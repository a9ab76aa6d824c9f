'use client'

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef } from 'react'
import type { MirrorPartition } from '@/lib/api/mirrors'
import { mirrorPartitionRequest } from '@/components/partition/queries'
import { endpointKey, endpointQuery } from './endpoint-query'
import { useEventListener } from './event-stream'

/** Refetches at most this often however many events arrive: a burst of lag events costs one request. */
const REFRESH_EVERY_MS = 1_000

/**
 * One mirror partition with its state and lag (null when the mirror has no such partition), and how many
 * partitions its topic has (topic actions act on all of them). The API has no
 * single-partition read, so this reads the topic's partitions and picks one; the partition's own transitions
 * and lag events refetch it.
 */
export function useMirrorPartition(mirror: string, topic: string, partition: number) {
  const queryClient = useQueryClient()
  const request = mirrorPartitionRequest(mirror, topic)
  const select = useCallback(
    (data: { partitions: MirrorPartition[] }): { partition: MirrorPartition | null; topicPartitions: number } => ({
      partition: data.partitions.find((entry) => entry.partition === partition) ?? null,
      topicPartitions: data.partitions.length,
    }),
    [partition],
  )
  const result = useQuery({ ...endpointQuery(request.endpoint, request), select })

  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const refresh = useCallback(() => {
    if (timer.current !== undefined) return
    timer.current = setTimeout(() => {
      timer.current = undefined
      const request = mirrorPartitionRequest(mirror, topic)
      void queryClient.invalidateQueries({ queryKey: endpointKey(request.endpoint, request), exact: true })
    }, REFRESH_EVERY_MS)
  }, [queryClient, mirror, topic])
  useEffect(() => () => clearTimeout(timer.current), [])

  useEventListener(
    'partition',
    useCallback(
      (data: unknown) => {
        const event = data as { mirror?: unknown; topic?: unknown; partition?: unknown }
        if (event.mirror === mirror && event.topic === topic && event.partition === partition) refresh()
      },
      [mirror, topic, partition, refresh],
    ),
  )
  useEventListener(
    'lag',
    useCallback(
      (data: unknown) => {
        const event = data as { mirror?: unknown; partitions?: unknown }
        if (event.mirror !== mirror || !Array.isArray(event.partitions)) return
        if (event.partitions.some((entry: { topic?: unknown; partition?: unknown }) => entry.topic === topic && entry.partition === partition)) refresh()
      },
      [mirror, topic, partition, refresh],
    ),
  )
  return result
}
