'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { endpointUrl } from '@/lib/api/client'
import { drillEndpoints, mirrorEndpoints } from '@/lib/api/routes'
import { callEndpoint } from './call-endpoint'
import { endpointQuery } from './endpoint-query'
import { queryKeys } from './query-keys'

/** While a drill runs its page reads it this often (the `drill` event also refetches it). */
const RUNNING_REFRESH_MS = 1_000

/** A mirror's drills, newest first, with its cadence; re-read every second while one runs. */
export function useMirrorDrills(mirror: string) {
  return useQuery({
    ...endpointQuery(drillEndpoints.listMirrorDrills, { params: { mirror } }),
    refetchInterval: (query) => (query.state.data?.drills.some((drill) => drill.status === 'running') ? RUNNING_REFRESH_MS : false),
  })
}

export function useDrill(id: string) {
  return useQuery({
    ...endpointQuery(drillEndpoints.getDrill, { params: { id } }),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? RUNNING_REFRESH_MS : false),
  })
}

function useRefreshDrills(mirror: string) {
  const queryClient = useQueryClient()
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.of(drillEndpoints.listMirrorDrills, { mirror }) })
    void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.getMirror, { mirror }) })
  }
}

/** Starts a drill of the mirror (all its topics, or these). */
export function useStartDrill(mirror: string) {
  const refresh = useRefreshDrills(mirror)
  return useMutation({
    mutationFn: (topics: readonly string[] | undefined) => callEndpoint(drillEndpoints.startDrill, { params: { mirror }, body: topics === undefined ? {} : { topics: [...topics] } }),
    onSuccess: refresh,
  })
}

export function useCancelDrill(id: string, mirror: string) {
  const queryClient = useQueryClient()
  const refresh = useRefreshDrills(mirror)
  return useMutation({
    mutationFn: () => callEndpoint(drillEndpoints.cancelDrill, { params: { id } }),
    onSuccess: (drill) => {
      queryClient.setQueryData(endpointQuery(drillEndpoints.getDrill, { params: { id } }).queryKey, drill)
      refresh()
    },
  })
}

/** Where the browser downloads a drill's report from (the session cookie authenticates it). */
export function drillReportUrl(id: string, format: 'json' | 'md'): string {
  return endpointUrl(drillEndpoints.drillReport, { id }, format === 'md' ? { format } : {})
}
