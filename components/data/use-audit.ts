'use client'

import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query'
import type { AuditOutcome } from '@/lib/api/audit'
import { systemEndpoints } from '@/lib/api/endpoints'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

export interface AuditFilters {
  readonly actor?: string
  readonly action?: string
  readonly outcome?: AuditOutcome
  readonly from?: number
  readonly to?: number
}

export const AUDIT_PAGE_SIZE = 50

/** The audit log, newest first, a page at a time: each older page starts below the last id seen (`before`). */
export function useAuditEntries(filters: AuditFilters) {
  const query = {
    actor: filters.actor,
    action: filters.action,
    outcome: filters.outcome,
    from: filters.from,
    to: filters.to,
    limit: AUDIT_PAGE_SIZE,
  }
  return useInfiniteQuery({
    queryKey: queryKeys.request(systemEndpoints.audit, {}, query),
    queryFn: ({ signal, pageParam }) => callEndpoint(systemEndpoints.audit, { query: { ...query, before: pageParam }, signal }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (lastPage) => (lastPage.entries.length < AUDIT_PAGE_SIZE ? undefined : lastPage.entries.at(-1)?.id),
    placeholderData: keepPreviousData,
  })
}
