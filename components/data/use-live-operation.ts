'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
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
 * One operation, live: the event stream writes each operation event into this query (cache-sync.ts); while
 * the stream is not open, and the operation still runs, it is re-read every 3 s so progress never freezes.
 */
export function useLiveOperation(id: string) {
  const stream = useStreamStatus()
  return useQuery({
    ...endpointQuery(mirrorEndpoints.getOperation, { params: { id } }),
    // Each operation event writes a patched copy that shares the unchanged partitions (cache-sync.ts):
    // comparing 10,000 partitions deeply on every write found nothing to share.
    structuralSharing: false,
    refetchInterval: (query) => (query.state.data?.status !== 'running' ? false : stream !== 'open' ? POLL_WHILE_DISCONNECTED_MS : POLL_WHILE_CONNECTED_MS),
  })
}
