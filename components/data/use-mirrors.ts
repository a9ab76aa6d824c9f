'use client'

import { useQuery } from '@tanstack/react-query'
import { mirrorEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'

/** The server checks old sources every second; this many ms between reads shows a write within ~3 s. */
const SPLIT_BRAIN_REFRESH_MS = 2_000

export function useMirrors() {
  return useQuery(endpointQuery(mirrorEndpoints.listMirrors))
}

/**
 * The mirror summaries for the split-brain notice: re-read every 2 s while any mirror's old source is
 * watched (its `splitBrain`), or has STOPPED partitions the server is about to watch.
 */
export function useSplitBrainWatch() {
  return useQuery({
    ...endpointQuery(mirrorEndpoints.listMirrors),
    refetchInterval: (query) => (query.state.data?.mirrors.some((summary) => summary.splitBrain != null || (summary.partitionsByState.STOPPED ?? 0) > 0) ? SPLIT_BRAIN_REFRESH_MS : false),
  })
}

/**
 * One mirror for its split-brain notice (the mirror page, an operation, the failover result): the mirror's own
 * answer, which carries `splitBrain`, re-read every 2 s while its old source is watched or it has STOPPED
 * partitions; the whole list is not read for one mirror's notice.
 */
export function useMirrorSplitBrainWatch(mirror: string) {
  return useQuery({
    ...endpointQuery(mirrorEndpoints.getMirror, { params: { mirror } }),
    refetchInterval: (query) => (query.state.data !== undefined && (query.state.data.splitBrain != null || (query.state.data.partitionsByState.STOPPED ?? 0) > 0) ? SPLIT_BRAIN_REFRESH_MS : false),
  })
}

/**
 * One mirror's answer for what flows now (its `throughput`, over the last 10 s), re-read every 2 s: the mirror page
 * used to read the whole mirror list for it, re-read on every lag event of any mirror.
 */
export function useMirrorFlow(mirror: string) {
  return useQuery({ ...endpointQuery(mirrorEndpoints.getMirror, { params: { mirror } }), refetchInterval: FLOW_REFRESH_MS })
}

const FLOW_REFRESH_MS = 2_000

export function useMirror(mirror: string) {
  return useQuery(endpointQuery(mirrorEndpoints.getMirror, { params: { mirror } }))
}
