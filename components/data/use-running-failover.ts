'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'

/**
 * The running failover of a mirror, if any (GET /operations?status=running, filtered here: the list may not
 * take a mirror filter yet). Operation events invalidate the list, so a failover started in another tab or by
 * another operator shows up without polling.
 */
export function useRunningFailover(mirror: string, enabled = true) {
  return useQuery({
    ...endpointQuery(mirrorEndpoints.listOperations, { query: { status: 'running' } }),
    // Off once the wizard follows an operation: the list of thousands of partitions need not be re-read.
    enabled,
    select: (data) => data.operations.find((operation) => operation.mirror === mirror && operation.kind === 'failover') ?? null,
  })
}
