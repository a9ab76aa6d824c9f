'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { TruncationPlanResponse, type CreateMirrorRequest, type Mirror, type MirrorConfigInput, type TruncationPlan } from '@/lib/api/mirrors'
import { callEndpointWithStatus } from './call-endpoint'
import { endpointKey } from './endpoint-query'
import { queryKeys } from './query-keys'

/** Creating, configuring and deleting mirrors from the dashboard (issue #19). */

export type CreateMirrorAnswer = { readonly kind: 'plan'; readonly plan: TruncationPlan } | { readonly kind: 'mirror'; readonly mirror: Mirror }

export function useCreateMirror() {
  const queryClient = useQueryClient()
  return useMutation({
    /** `dryRun: true` answers the truncation plan (200) and creates nothing; otherwise the mirror (201). */
    mutationFn: async (request: CreateMirrorRequest): Promise<CreateMirrorAnswer> => {
      const answer = await callEndpointWithStatus(mirrorEndpoints.createMirror, { body: request })
      // The 200 body was parsed with the endpoint's TruncationPlanResponse (otherResponses), the 201 with Mirror.
      return answer.status === 200 ? { kind: 'plan', plan: TruncationPlanResponse.parse(answer.data).plan } : { kind: 'mirror', mirror: answer.data }
    },
    onSuccess: (_answer, request) => {
      if (request.dryRun !== true) void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.listMirrors) })
    },
  })
}

/** The mirror's state version as If-Match: the change is refused (412) when the mirror moved since it was read. */
function ifMatch(stateVersion: string) {
  return { 'if-match': `"${stateVersion}"` }
}

export function usePatchMirror(mirror: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ config, stateVersion }: { config: MirrorConfigInput; stateVersion: string }) =>
      (await callEndpointWithStatus(mirrorEndpoints.patchMirror, { params: { mirror }, body: { config }, headers: ifMatch(stateVersion) })).data,
    onSuccess: (updated) => {
      queryClient.setQueryData(endpointKey(mirrorEndpoints.getMirror, { params: { mirror } }), updated)
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.listMirrors) })
    },
  })
}

export function useDeleteMirror(mirror: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ stateVersion }: { stateVersion: string }) =>
      (await callEndpointWithStatus(mirrorEndpoints.deleteMirror, { params: { mirror }, headers: ifMatch(stateVersion) })).data,
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: queryKeys.of(mirrorEndpoints.getMirror, { mirror }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.listMirrors) })
    },
  })
}
