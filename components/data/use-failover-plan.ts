'use client'

import { useMutation, useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import type { FailoverPlan, FailoverRequest } from '@/lib/api/mirrors'
import { callEndpointWithStatus } from './call-endpoint'
import { endpointAnswerQuery } from './endpoint-query'

/**
 * The failover dry run (POST /mirrors/{m}/failover with dryRun). Requested when the wizard enters its
 * gates step and again before the confirmation when it is older than 30 s (UI.md §2); never polled and
 * never refetched on focus, so the operator reads one plan at a time. `dataUpdatedAt` tells its age.
 */
export function useFailoverPlan(mirror: string, topics: readonly string[] | undefined, enabled: boolean, type: 'planned' | 'unplanned' = 'unplanned') {
  const body: FailoverRequest = { dryRun: true, type, ...(topics === undefined ? {} : { topics: [...topics] }) }
  return useQuery({
    ...endpointAnswerQuery(mirrorEndpoints.failover, 200, { params: { mirror }, body }),
    select: (answer) => answer.plan,
    enabled,
    staleTime: Infinity,
    gcTime: 60_000,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    retry: false,
  })
}

/** The real failover: 202 with the operation's id, or the API's refusal as an ApiError. */
export function useFailoverMutation(mirror: string) {
  return useMutation({
    // Gate names come from the plan the server sent; the server checks them again.
    mutationFn: async (body: Omit<FailoverRequest, 'force'> & { force?: readonly string[] }): Promise<{ operation: string; plan: FailoverPlan }> => {
      const { status, data } = await callEndpointWithStatus(mirrorEndpoints.failover, { params: { mirror }, body })
      if (status !== 202 || !('operation' in data)) throw new Error(`the failover answered ${status} without an operation`)
      return data
    },
  })
}
