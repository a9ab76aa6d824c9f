'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/endpoints'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

type OperationsQuery = { status?: 'running' | 'succeeded' | 'failed' }

export function useOperations(query: OperationsQuery = {}) {
  return useQuery({
    queryKey: queryKeys.request(mirrorEndpoints.listOperations, {}, query),
    queryFn: ({ signal }) => callEndpoint(mirrorEndpoints.listOperations, { query, signal }),
  })
}

/** Kept current by the event stream (operation events are written into this query's cache entry). */
export function useOperation(id: string) {
  return useQuery({
    queryKey: queryKeys.request(mirrorEndpoints.getOperation, { id }),
    queryFn: ({ signal }) => callEndpoint(mirrorEndpoints.getOperation, { params: { id }, signal }),
  })
}
