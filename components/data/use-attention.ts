'use client'

import { useQuery } from '@tanstack/react-query'
import { overviewEndpoints } from '@/lib/api/endpoints'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

/**
 * Partitions that need attention, worst first. Growing lag and stale fetches are judged against the clock,
 * so this is also refetched every few seconds when no event arrives (a fetch that stopped sends none).
 */
export function useAttention() {
  return useQuery({
    queryKey: queryKeys.request(overviewEndpoints.attention),
    queryFn: ({ signal }) => callEndpoint(overviewEndpoints.attention, { signal }),
    refetchInterval: 10_000,
  })
}
