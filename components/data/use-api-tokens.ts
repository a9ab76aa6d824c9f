'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { tokenEndpoints } from '@/lib/api/routes'
import type { CreateApiTokenRequest } from '@/lib/api/tokens'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

/** Named API tokens (administrators): the list, create (its answer holds the secret once) and revoke. */

export function useApiTokens() {
  return useQuery({
    queryKey: queryKeys.request(tokenEndpoints.listApiTokens),
    queryFn: ({ signal }) => callEndpoint(tokenEndpoints.listApiTokens, { signal }),
  })
}

function useTokenMutation<V, R>(mutationFn: (variables: V) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.of(tokenEndpoints.listApiTokens) }),
  })
}

export function useCreateApiToken() {
  return useTokenMutation((body: CreateApiTokenRequest) => callEndpoint(tokenEndpoints.createApiToken, { body }))
}

export function useRevokeApiToken() {
  return useTokenMutation((name: string) => callEndpoint(tokenEndpoints.revokeApiToken, { params: { name } }))
}
