'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { readLagResponse } from '@/lib/ui/lag-response-check'
import { LAG_RANGES, type LagRange } from '@/lib/ui/lag-series'
import { callEndpoint } from './call-endpoint'
import { endpointKey } from './endpoint-query'

/**
 * A mirror's lag history over one of the chart's ranges, bucketed by the server to the range's step. Read
 * once per range: the chart extends it from live lag events, so it is never polled.
 */
/** `enabled: false` holds the request back (the page asks for its partitions first: a big mirror's lag history is megabytes). */
export function useLag(mirror: string, range: LagRange, enabled = true) {
  const { rangeMs, stepMs } = LAG_RANGES[range]
  return useQuery({
    // The window's edges are computed when the request is sent (and kept with its answer): the step alone
    // tells the ranges apart, so the key is the request without them.
    queryKey: endpointKey(mirrorEndpoints.mirrorLag, { params: { mirror }, query: { stepMs } }),
    queryFn: async ({ signal }) => {
      const to = Date.now()
      const from = to - rangeMs
      // Per topic, folded by the server: the chart draws no finer line, and a 2,000-partition mirror's history per
      // partition was 2.4 MB parsed and folded on the main thread as the page loaded. Checked field by field, the
      // schema only for what that check does not accept.
      const answer = await callEndpoint(mirrorEndpoints.mirrorLag, { params: { mirror }, query: { from, to, stepMs, by: 'topic' }, signal, read: readLagResponse })
      return { ...answer, from, to }
    },
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    structuralSharing: false,
  })
}
