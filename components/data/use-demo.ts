'use client'

import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { useCallback } from 'react'
import type { Run, Workload } from '@/lib/api/demo'
import { clusterEndpoints, demoEndpoints } from '@/lib/api/endpoints'
import { DemoEvent } from '@/lib/api/events'
import { callEndpoint } from './call-endpoint'
import { useEventListener } from './event-stream'
import { queryKeys } from './query-keys'

/**
 * The demo environment's resources (API.md "Demo environment"). The `demo` events of the stream (a run
 * advanced, a fault changed, a workload changed) are written into these queries by `useDemoEvents`; the
 * polls below only cover what no event announces (a workload's record count) and a stream that is down.
 */

/** A running scenario is re-read this often, so the narration advances even without the event stream. */
const RUN_POLL_MS = 1_000
/** Workloads' record counts move without events. */
const WORKLOAD_POLL_MS = 3_000

export function useDemoStatus() {
  return useQuery({
    queryKey: queryKeys.request(demoEndpoints.getDemo),
    queryFn: ({ signal }) => callEndpoint(demoEndpoints.getDemo, { signal }),
    refetchInterval: (query) => (query.state.data?.status === 'starting' ? 2_000 : false),
  })
}

export function useWorkloads() {
  return useQuery({
    queryKey: queryKeys.request(demoEndpoints.listWorkloads),
    queryFn: ({ signal }) => callEndpoint(demoEndpoints.listWorkloads, { signal }),
    refetchInterval: WORKLOAD_POLL_MS,
  })
}

export function useFaults() {
  return useQuery({
    queryKey: queryKeys.request(demoEndpoints.listFaults),
    queryFn: ({ signal }) => callEndpoint(demoEndpoints.listFaults, { signal }),
  })
}

export function useScenarios() {
  return useQuery({
    queryKey: queryKeys.request(demoEndpoints.listScenarios),
    queryFn: ({ signal }) => callEndpoint(demoEndpoints.listScenarios, { signal }),
    staleTime: Infinity,
  })
}

export function useRuns() {
  return useQuery({
    queryKey: queryKeys.request(demoEndpoints.listRuns),
    queryFn: ({ signal }) => callEndpoint(demoEndpoints.listRuns, { signal }),
  })
}

export function isRunActive(run: Pick<Run, 'status'>): boolean {
  return run.status === 'pending' || run.status === 'running'
}

/** One run, re-read every second while it is pending or running. */
export function useRun(id: string, initial?: Run) {
  return useQuery({
    queryKey: queryKeys.request(demoEndpoints.getRun, { id }),
    queryFn: ({ signal }) => callEndpoint(demoEndpoints.getRun, { params: { id }, signal }),
    initialData: initial === undefined ? undefined : { run: initial },
    initialDataUpdatedAt: 0,
    refetchInterval: (query) => (query.state.data === undefined || isRunActive(query.state.data.run) ? RUN_POLL_MS : false),
  })
}

/** Writes a run the server just answered (a POST's 202) into the queries that show it. */
export function storeRun(queryClient: QueryClient, run: Run): void {
  queryClient.setQueryData(queryKeys.request(demoEndpoints.getRun, { id: run.id }), { run })
  queryClient.setQueryData(queryKeys.request(demoEndpoints.listRuns), (previous: { runs: Run[] } | undefined) =>
    previous === undefined ? previous : { runs: [run, ...previous.runs.filter((other) => other.id !== run.id)] },
  )
}

export function storeWorkload(queryClient: QueryClient, workload: Workload): void {
  queryClient.setQueryData(queryKeys.request(demoEndpoints.listWorkloads), (previous: { workloads: Workload[] } | undefined) =>
    previous === undefined ? previous : { workloads: previous.workloads.map((other) => (other.name === workload.name ? workload : other)) },
  )
}

/** Keeps the demo's queries current from the event stream while the control room is open. */
export function useDemoEvents(): void {
  const queryClient = useQueryClient()
  const listener = useCallback(
    (data: unknown) => {
      const parsed = DemoEvent.safeParse(data)
      if (!parsed.success) return
      const event = parsed.data
      if (event.change === 'runUpdated') storeRun(queryClient, event.run)
      else if (event.change === 'workloadChanged') storeWorkload(queryClient, event.workload)
      else {
        // A stopped or started broker shows on the cluster's page too.
        void queryClient.invalidateQueries({ queryKey: queryKeys.of(demoEndpoints.listFaults) })
        void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.getCluster, { cluster: event.fault.cluster }) })
      }
    },
    [queryClient],
  )
  useEventListener('demo', listener)
}
