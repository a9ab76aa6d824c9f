'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/endpoints'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

export function useMirrors() {
  return useQuery({
    queryKey: queryKeys.request(mirrorEndpoints.listMirrors),
    queryFn: ({ signal }) => callEndpoint(mirrorEndpoints.listMirrors, { signal }),
  })
}

export function useMirror(mirror: string) {
  return useQuery({
    queryKey: queryKeys.request(mirrorEndpoints.getMirror, { mirror }),
    queryFn: ({ signal }) => callEndpoint(mirrorEndpoints.getMirror, { params: { mirror }, signal }),
  })
}
