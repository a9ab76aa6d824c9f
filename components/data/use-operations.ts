'use client'

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import type { OperationStatus } from '@/lib/api/operations'
import { endpointQuery } from './endpoint-query'
import { operationQuery } from './use-live-operation'

export function useOperations(query: { status?: OperationStatus } = {}) {
  return useQuery(endpointQuery(mirrorEndpoints.listOperations, { query }))
}

/** Kept current by the event stream (operation events are written into this query's cache entry). */
export function useOperation(id: string) {
  return useQuery(operationQuery(useQueryClient(), id))
}
