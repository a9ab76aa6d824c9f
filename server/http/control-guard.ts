import 'server-only'
import { ApiError } from '@/lib/api/errors'
import { isMutation, type Endpoint } from '@/lib/api/endpoints'
import type { Runtime } from '@/server/runtime'

/**
 * Several instances (docs/high-availability.md): while the control cluster does not answer this instance
 * (server/ha/control-health.ts), changes are refused with `503 CONTROL_CLUSTER_UNAVAILABLE` before anything is read
 * or forwarded, so nothing changes; reads go on, and so do the mirrors this instance runs. An instance cut off from
 * the control cluster cannot tell whether it still owns a mirror, publish a cluster, or have the group place a new
 * mirror. Signing in and out (the public endpoints) stay open: they touch this instance's sessions only, and an
 * operator must be able to sign in to see what is going on. Without MIRRORBOARD_CONTROL_BOOTSTRAP nothing is refused.
 */

/** The endpoints refused while the control cluster does not answer (the OpenAPI document lists the code on them). */
export function refusedWithoutControlCluster(endpoint: Endpoint): boolean {
  return isMutation(endpoint) && endpoint.role !== 'public'
}

export function refuseWithoutControlCluster(runtime: Runtime, endpoint: Endpoint): void {
  if (!runtime.ha || !refusedWithoutControlCluster(endpoint)) return
  const state = runtime.ha.control.state()
  if (state.available) return
  const since = new Date(state.since).toISOString()
  throw new ApiError(
    'CONTROL_CLUSTER_UNAVAILABLE',
    `the control cluster has not answered instance ${runtime.ha.instanceId} since ${since}${state.lastError ? ` (${state.lastError})` : ''}: changes are refused until it does; reads and the mirrors running here go on. Retry later`,
    { details: { since: state.since, lastError: state.lastError } },
  )
}
