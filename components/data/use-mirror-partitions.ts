'use client'

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { mirrorEndpoints } from '@/lib/api/routes'
import { readPartitionList } from '@/lib/ui/partition-list-check'
import { endpointKey, endpointQuery } from './endpoint-query'
import { useEventListener, useStreamStatus } from './event-stream'
import { MirrorPartitionStore, readLagEvent, readPartitionEvent, type PartitionPreview } from './mirror-partition-store'

/**
 * A mirror's partitions as a live store (mirror-partition-store.ts): seeded by GET .../partitions, patched
 * by the tab's `lag` and `partition` events, refetched every REFRESH_MS for what events do not carry (last
 * fetch, truncations, errors, leader epochs) and shortly after a burst of state changes settles.
 */
const REFRESH_MS = 10_000
/**
 * Mirrors up to this many partitions refresh twice as often: their list is small, and freshness reads truer. Not
 * 2,000: that list is 1.2 MB, whose parse and check were a 200–250 ms task every 5 s on a phone's CPU.
 */
const SMALL_MIRROR_PARTITIONS = 500
/** How long after the last state change the list is refetched (the burst of a 10,000-partition pause is one refetch). */
const SETTLE_MS = 1_500

/** `preview`: the first screen of rows the server page read, shown until the whole list is in. */
export function useMirrorPartitions(mirror: string, preview: PartitionPreview | null = null) {
  const queryClient = useQueryClient()
  const [store] = useState(() => new MirrorPartitionStore(mirror, undefined, preview))
  const live = useStreamStatus() === 'open'
  // Checked field by field, the schema only for what that check does not accept (4.6 MB every 10 s); the
  // first read takes the answer the page's inline script asked for before the bundle loaded.
  const read = endpointQuery(mirrorEndpoints.listMirrorPartitions, { params: { mirror } }, { read: readPartitionList, early: true })
  const query = useQuery({
    ...read,
    queryFn: async (context) => {
      store.beginRefetch()
      try {
        return await read.queryFn(context)
      } catch (error) {
        store.abandonRefetch()
        throw error
      }
    },
    // 10,000 rows: comparing the new answer with the old one deeply costs more than it saves.
    structuralSharing: false,
    // Without live events the refetch is all there is; with them it only fills in what events lack.
    refetchInterval: (current) => {
      const small = (current.state.data?.partitions.length ?? 0) <= SMALL_MIRROR_PARTITIONS
      return live && !small ? REFRESH_MS : REFRESH_MS / 2
    },
    refetchIntervalInBackground: false,
  })

  const data = query.data
  useEffect(() => {
    if (data !== undefined) store.replaceAll(data.partitions)
  }, [data, store])

  const settleTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const refetchSoon = useCallback(() => {
    clearTimeout(settleTimer.current)
    const key = endpointKey(mirrorEndpoints.listMirrorPartitions, { params: { mirror } })
    settleTimer.current = setTimeout(() => void queryClient.invalidateQueries({ queryKey: key, exact: true }), SETTLE_MS)
  }, [queryClient, mirror])
  useEffect(() => () => clearTimeout(settleTimer.current), [])

  useEventListener(
    'partition',
    useCallback(
      (data: unknown) => {
        const event = readPartitionEvent(data, mirror)
        if (event === undefined) return
        store.applyTransition(event)
        refetchSoon()
      },
      [mirror, refetchSoon, store],
    ),
  )
  useEventListener(
    'lag',
    useCallback(
      (data: unknown) => {
        const event = readLagEvent(data, mirror)
        if (event === undefined) return
        store.applyLag(event)
        if (store.takeUnknownSeen()) refetchSoon()
      },
      [mirror, refetchSoon, store],
    ),
  )

  return { store, status: query.status, error: query.error, isFetching: query.isFetching, refetch: query.refetch }
}
