import type { QueryClient } from '@tanstack/react-query'
import { clusterEndpoints, mirrorEndpoints, systemEndpoints } from '@/lib/api/endpoints'
import { ClusterEvent } from '@/lib/api/events'
import { OperationEvent, type Operation } from '@/lib/api/operations'
import { applyOperationEvent } from '@/lib/ui/operation-event'
import type { EventStreamClient } from './event-stream-client'
import { queryKeys, type QueryKey } from './query-keys'

/**
 * How live events reach cached queries: an operation event is written into the cache (a whole operation, or
 * the partitions a progress event says changed, patched in: lib/ui/operation-event.ts); the others say what changed and invalidate the queries that show it, at most once per
 * `INVALIDATE_EVERY_MS` per key, so a burst of a thousand transitions costs one refetch, not a thousand.
 * Features with their own stores (the 10,000-row partition table) subscribe to the stream themselves.
 */

const INVALIDATE_EVERY_MS = 1_000

export function syncCacheWithEvents(queryClient: QueryClient, stream: EventStreamClient): () => void {
  const pending = new Map<string, QueryKey>()
  let timer: ReturnType<typeof setTimeout> | undefined
  const invalidate = (...keys: QueryKey[]) => {
    for (const key of keys) pending.set(JSON.stringify(key), key)
    if (timer !== undefined) return
    timer = setTimeout(() => {
      timer = undefined
      const keysNow = [...pending.values()]
      pending.clear()
      for (const queryKey of keysNow) void queryClient.invalidateQueries({ queryKey })
    }, INVALIDATE_EVERY_MS)
  }

  const unsubscribers = [
    stream.subscribe('partition', (data) => {
      const event = data as { mirror?: unknown; topic?: unknown; partition?: unknown }
      if (typeof event.mirror !== 'string') return
      const mirror = event.mirror
      invalidate(
        queryKeys.of(mirrorEndpoints.listMirrors),
        queryKeys.of(mirrorEndpoints.getMirror, { mirror }),
        queryKeys.of(mirrorEndpoints.partitionHistory, { mirror }),
      )
    }),
    // The list only needs to know that lag moved, not the megabyte of per-partition lag the event carries.
    stream.subscribeArrival('lag', () => invalidate(queryKeys.of(mirrorEndpoints.listMirrors))),
    stream.subscribe('operation', (data) => {
      // A progress event of a running operation holds only the partitions that changed: this parses
      // those, not the whole 10,000-partition list, four times a second.
      const parsed = OperationEvent.safeParse(data)
      if (!parsed.success) return
      const key = queryKeys.request(mirrorEndpoints.getOperation, { id: parsed.data.id })
      const next = applyOperationEvent(queryClient.getQueryData<Operation>(key), parsed.data)
      // Not held (or not matching): the whole operation is read again, without cancelling a read under way.
      if (next === undefined) void queryClient.invalidateQueries({ queryKey: key, exact: true }, { cancelRefetch: false })
      else queryClient.setQueryData(key, next)
      invalidate(queryKeys.of(mirrorEndpoints.listOperations))
    }),
    stream.subscribe('cluster', (data) => {
      const parsed = ClusterEvent.safeParse(data)
      if (!parsed.success) return
      const { cluster, topic } = parsed.data
      invalidate(
        queryKeys.of(clusterEndpoints.listClusters),
        queryKeys.of(clusterEndpoints.getCluster, { cluster }),
        queryKeys.of(clusterEndpoints.listTopics, { cluster }),
        queryKeys.of(clusterEndpoints.listGroups, { cluster }),
        topic === undefined ? queryKeys.of(clusterEndpoints.listPartitions, { cluster }) : queryKeys.of(clusterEndpoints.listPartitions, { cluster, topic }),
        topic === undefined ? queryKeys.of(clusterEndpoints.readRecords, { cluster }) : queryKeys.of(clusterEndpoints.readRecords, { cluster, topic }),
      )
    }),
    stream.subscribe('audit', () => invalidate(queryKeys.of(systemEndpoints.audit))),
    // The server no longer holds what this tab missed: everything may be stale.
    stream.subscribe('resync', () => void queryClient.invalidateQueries()),
  ]
  return () => {
    clearTimeout(timer)
    for (const unsubscribe of unsubscribers) unsubscribe()
  }
}
