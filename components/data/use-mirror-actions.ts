'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

export type TopicAction = 'pause' | 'resume' | 'recover'

const ENDPOINT = {
  pause: mirrorEndpoints.pauseMirrorTopics,
  resume: mirrorEndpoints.resumeMirrorTopics,
  recover: mirrorEndpoints.recoverMirrorTopics,
} as const

function useRefreshMirror(mirror: string) {
  const queryClient = useQueryClient()
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.getMirror, { mirror }) })
    void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.listMirrorPartitions, { mirror }) })
  }
}

/** Pause, resume or recover topics of a mirror (all of them when `topics` is undefined). */
export function useMirrorTopicsMutation(mirror: string, action: TopicAction) {
  const refresh = useRefreshMirror(mirror)
  return useMutation({
    mutationFn: (topics: readonly string[] | undefined) =>
      callEndpoint(ENDPOINT[action], { params: { mirror }, body: topics === undefined ? {} : { topics: [...topics] } }),
    onSuccess: refresh,
  })
}

/** Starts mirroring topics; with `dryRun` only answers the truncation plan and changes nothing. */
export function useStartTopicsMutation(mirror: string) {
  const refresh = useRefreshMirror(mirror)
  return useMutation({
    mutationFn: ({ topics, dryRun }: { topics: readonly string[]; dryRun: boolean }) =>
      callEndpoint(mirrorEndpoints.startMirrorTopics, { params: { mirror }, body: { topics: [...topics], dryRun } }),
    onSuccess: (_answer, { dryRun }) => {
      if (!dryRun) refresh()
    },
  })
}
