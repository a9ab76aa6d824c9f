'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'

/** A slow fallback only: partition events re-read the timeline within a second (components/data/cache-sync.ts). */
const REFRESH_MS = 60_000

/** A mirror's incident timeline (GET /mirrors/{m}/timeline), oldest first as the API lists it. */
export function useMirrorTimeline(mirror: string) {
  return useQuery({ ...endpointQuery(mirrorEndpoints.mirrorTimeline, { params: { mirror } }), refetchInterval: REFRESH_MS })
}
