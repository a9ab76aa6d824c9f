'use client'

import { useMutation, useQueries, useQuery } from '@tanstack/react-query'
import { clusterEndpoints, mirrorEndpoints } from '@/lib/api/routes'
import type { CreateMirrorRequest } from '@/lib/api/mirrors'
import { callEndpoint } from './call-endpoint'
import { endpointAnswerQuery, endpointQuery } from './endpoint-query'

export interface ReverseMirror {
  readonly name: string
  readonly sourceCluster: string
  readonly destinationCluster: string
  readonly topics: readonly string[]
}

function createBody(reverse: ReverseMirror, dryRun: boolean): CreateMirrorRequest {
  return { name: reverse.name, sourceCluster: reverse.sourceCluster, destinationCluster: reverse.destinationCluster, topics: [...reverse.topics], ...(dryRun ? { dryRun: true } : {}) }
}

/** The reverse mirror's dry run (POST /mirrors with dryRun): its truncation plan; read once per name, never polled. */
export function useFailbackPlan(reverse: ReverseMirror, enabled: boolean) {
  return useQuery({
    ...endpointAnswerQuery(mirrorEndpoints.createMirror, 200, { body: createBody(reverse, true) }),
    select: (answer) => answer.plan,
    enabled,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    retry: false,
  })
}

/** Creates the reverse mirror: from here the old source's partitions are truncated and mirror back. */
export function useCreateReverseMirror() {
  return useMutation({ mutationFn: (reverse: ReverseMirror) => callEndpoint(mirrorEndpoints.createMirror, { body: createBody(reverse, false) }) })
}

/** The reverse mirror while it starts: its summary, re-read every 1.5 s until every partition mirrors. */
export function useFailbackMirror(name: string, enabled: boolean) {
  return useQuery({
    ...endpointQuery(mirrorEndpoints.getMirror, { params: { mirror: name } }),
    enabled,
    refetchInterval: 1_500,
  })
}

/** A mirror's partitions (for the truncation points the failback made). */
export function useMirrorPartitionList(mirror: string, enabled: boolean, refetchMs: number | false = false) {
  return useQuery({
    ...endpointQuery(mirrorEndpoints.listMirrorPartitions, { params: { mirror } }),
    enabled,
    refetchInterval: refetchMs,
  })
}

/** Log start and end offsets of `topics` on a cluster, one request per topic. */
export function useTopicLogEnds(cluster: string, topics: readonly string[], options: { enabled: boolean; refetchMs?: number | false }) {
  return useQueries({
    queries: topics.map((topic) => ({
      ...endpointQuery(clusterEndpoints.listPartitions, { params: { cluster, topic } }),
      enabled: options.enabled,
      refetchInterval: options.refetchMs ?? false,
    })),
    combine: (results) => ({
      isPending: results.some((result) => result.isPending),
      error: results.find((result) => result.isError)?.error ?? null,
      refetch: () => results.forEach((result) => void result.refetch()),
      partitions: results.flatMap((result, index) => (result.data?.partitions ?? []).map((partition) => ({ topic: topics[index] ?? '', ...partition }))),
    }),
  })
}
