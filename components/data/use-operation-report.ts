'use client'

import { useQuery } from '@tanstack/react-query'
import { endpointUrl } from '@/lib/api/client'
import { mirrorEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'

/** The report of a finished operation (markers read back from the destination log); fetched once it is done. */
export function useOperationReport(id: string, enabled: boolean) {
  return useQuery({
    ...endpointQuery(mirrorEndpoints.operationReport, { params: { id } }),
    enabled,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  })
}

/** Where the browser downloads the report from (the session cookie authenticates it): JSON, or the Markdown post-mortem. */
export function operationReportUrl(id: string, format: 'json' | 'md' = 'json'): string {
  return endpointUrl(mirrorEndpoints.operationReport, { id }, format === 'md' ? { format } : {})
}
