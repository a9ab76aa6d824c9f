'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'
import { useStreamStatus } from './event-stream'

/** Re-read this often while the event stream is down and the operation runs. */
const POLL_WHILE_DISCONNECTED_MS = 3_000

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
    refetchInterval: (query) => (stream !== 'open' && query.state.data?.status === 'running' ? POLL_WHILE_DISCONNECTED_MS : false),
  })
}
