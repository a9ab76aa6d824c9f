'use client'

import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query'
import type { AuditOutcome } from '@/lib/api/audit'
import { systemEndpoints } from '@/lib/api/routes'
import { endpointPagesQuery } from './endpoint-query'

export interface AuditQueryFilters {
  readonly actor?: string
  readonly action?: string
  readonly outcome?: AuditOutcome
  readonly from?: number
  readonly to?: number
}

export const AUDIT_PAGE_SIZE = 50

/**
 * The audit log, newest first, a page at a time: each older page asks for ids below the last one seen
 * (`before`), so entries appended meanwhile never shift a page. Audit events refetch it (cache-sync).
 */
export function useAuditEntries(filters: AuditQueryFilters) {
  return useInfiniteQuery({
    ...endpointPagesQuery(
      systemEndpoints.audit,
      { query: { ...filters, limit: AUDIT_PAGE_SIZE } },
      { pageParam: 'before', nextPage: (lastPage) => (lastPage.entries.length < AUDIT_PAGE_SIZE ? undefined : lastPage.entries.at(-1)?.id) },
    ),
    placeholderData: keepPreviousData,
  })
}
