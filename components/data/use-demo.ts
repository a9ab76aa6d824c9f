'use client'

import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { useCallback } from 'react'
import type { Run, Workload } from '@/lib/api/demo'
import { clusterEndpoints, demoEndpoints } from '@/lib/api/routes'
import { DemoEvent } from '@/lib/api/events'
import { endpointKey, endpointQuery } from './endpoint-query'
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
    ...endpointQuery(demoEndpoints.getDemo),
    refetchInterval: (query) => (query.state.data?.status === 'starting' ? 2_000 : false),
  })
}

export function useWorkloads() {
  return useQuery({
    ...endpointQuery(demoEndpoints.listWorkloads),
    refetchInterval: WORKLOAD_POLL_MS,
  })
}

export function useFaults() {
  return useQuery(endpointQuery(demoEndpoints.listFaults))
}

export function useScenarios() {
  return useQuery({
    ...endpointQuery(demoEndpoints.listScenarios),
    staleTime: Infinity,
  })
}

export function useRuns() {
  return useQuery(endpointQuery(demoEndpoints.listRuns))
}

export function isRunActive(run: Pick<Run, 'status'>): boolean {
  return run.status === 'pending' || run.status === 'running'
}

/** One run, re-read every second while it is pending or running. */
export function useRun(id: string, initial?: Run) {
  return useQuery({
    ...endpointQuery(demoEndpoints.getRun, { params: { id } }),
    initialData: initial === undefined ? undefined : { run: initial },
    initialDataUpdatedAt: 0,
    refetchInterval: (query) => (query.state.data === undefined || isRunActive(query.state.data.run) ? RUN_POLL_MS : false),
  })
}

/** Writes a run the server just answered (a POST's 202) into the queries that show it. */
export function storeRun(queryClient: QueryClient, run: Run): void {
  queryClient.setQueryData(endpointKey(demoEndpoints.getRun, { params: { id: run.id } }), { run })
  queryClient.setQueryData(endpointKey(demoEndpoints.listRuns), (previous) =>
    previous === undefined ? previous : { runs: [run, ...previous.runs.filter((other) => other.id !== run.id)] },
  )
}

export function storeWorkload(queryClient: QueryClient, workload: Workload): void {
  queryClient.setQueryData(endpointKey(demoEndpoints.listWorkloads), (previous) =>
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

/** Whether this browser may use the demo's one-click operator sign-in (404 anywhere else: never retried). */
export function useDemoSignInOffer() {
  return useQuery({ ...endpointQuery(demoEndpoints.getDemoSignIn), retry: false, staleTime: Infinity })
}
