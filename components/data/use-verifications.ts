'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { verificationEndpoints } from '@/lib/api/routes'
import { callEndpoint } from './call-endpoint'
import { endpointQuery } from './endpoint-query'
import { queryKeys } from './query-keys'

/** While a verification runs its page reads it this often (the `verification` event also refetches it). */
const RUNNING_REFRESH_MS = 1_000

export function useMirrorVerifications(mirror: string) {
  return useQuery({
    ...endpointQuery(verificationEndpoints.listMirrorVerifications, { params: { mirror } }),
    refetchInterval: (query) => (query.state.data?.verifications.some((verification) => verification.status === 'running') ? RUNNING_REFRESH_MS : false),
  })
}

/** One verification; `enabled: false` when there is none to read (the partition page without `?verification=`). */
export function useVerification(id: string | null) {
  return useQuery({
    ...endpointQuery(verificationEndpoints.getVerification, { params: { id: id ?? 'v-none' } }),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? RUNNING_REFRESH_MS : false),
  })
}

export function useStartVerification(mirror: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (topics: readonly string[] | undefined) => callEndpoint(verificationEndpoints.verifyMirror, { params: { mirror }, body: topics === undefined ? {} : { topics: [...topics] } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.of(verificationEndpoints.listMirrorVerifications, { mirror }) }),
  })
}

export function useCancelVerification(id: string, mirror: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => callEndpoint(verificationEndpoints.cancelVerification, { params: { id } }),
    onSuccess: (verification) => {
      queryClient.setQueryData(endpointQuery(verificationEndpoints.getVerification, { params: { id } }).queryKey, verification)
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(verificationEndpoints.listMirrorVerifications, { mirror }) })
    },
  })
}
