'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/endpoints'
import { endpointQuery } from './endpoint-query'

/** Re-read this often: the timeline moves with partition events, and an incident's retries are seconds apart. */
const REFRESH_MS = 5_000

/** A mirror's incident timeline (GET /mirrors/{m}/timeline), oldest first as the API lists it. */
export function useMirrorTimeline(mirror: string) {
  return useQuery({ ...endpointQuery(mirrorEndpoints.mirrorTimeline, { params: { mirror } }), refetchInterval: REFRESH_MS })
}
