'use client'

import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { readOperation } from '@/lib/ui/operation-event'
import { endpointQuery } from './endpoint-query'
import { useStreamStatus } from './event-stream'

/** Re-read this often while the event stream is down and the operation runs. */
const POLL_WHILE_DISCONNECTED_MS = 3_000
/**
 * And this often while it is open: an operation event missed or not applied left the wizard on its progress step
 * after the operation had finished (e2e/switchover.spec.ts, about one run in four in session 20, cause not found).
 */
const POLL_WHILE_CONNECTED_MS = 5_000

/**
 * GET /operations/{id} for every reader of that operation (they share one cache entry, so each one's read
 * must keep the rule): a read answered before a `finished` event already applied never takes it back.
 */
export function operationQuery(queryClient: QueryClient, id: string) {
  const read = endpointQuery(mirrorEndpoints.getOperation, { params: { id } })
  return {
    ...read,
    queryFn: async (context: { signal: AbortSignal }) => {
      const answer = await read.queryFn(context)
      // What the tab holds once the answer is here, not when it was asked for: the event may land in between.
      return readOperation(queryClient.getQueryData(read.queryKey), answer)
    },
  }
}

/**
 * One operation, live: the event stream writes each operation event into this query (cache-sync.ts); while
 * the stream is not open, and the operation still runs, it is re-read every 3 s so progress never freezes.
 */
export function useLiveOperation(id: string) {
  const stream = useStreamStatus()
  const queryClient = useQueryClient()
  return useQuery({
    ...operationQuery(queryClient, id),
    // Each operation event writes a patched copy that shares the unchanged partitions (cache-sync.ts):
    // comparing 10,000 partitions deeply on every write found nothing to share.
    structuralSharing: false,
    refetchInterval: (query) => (query.state.data?.status !== 'running' ? false : stream !== 'open' ? POLL_WHILE_DISCONNECTED_MS : POLL_WHILE_CONNECTED_MS),
  })
}
