'use client'

import { useQuery } from '@tanstack/react-query'
import { overviewEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'

/**
 * Partitions that need attention, worst first. Growing lag and stale fetches are judged against the clock,
 * so this is also refetched every few seconds when no event arrives (a fetch that stopped sends none).
 */
export function useAttention() {
  return useQuery({
    ...endpointQuery(overviewEndpoints.attention),
    refetchInterval: 10_000,
  })
}
