import 'server-only'
import { DEFAULT_ATTENTION_THRESHOLDS } from '@/lib/overview/attention'
import { clusterEndpoints, mirrorEndpoints, overviewEndpoints, systemEndpoints, type Endpoint } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { logger } from '@/server/observability/logger'
import type { Runtime } from '@/server/runtime'
import type { Cluster } from '@/lib/api/clusters'
import type { MirrorList } from '@/lib/api/mirrors'
import { attentionOf } from '@/server/api/attention'
import { attentionEverywhere } from '@/server/api/attention-everywhere'
import { withOtherInstances } from '@/server/api/mirror-list'
import { instancesOf } from '@/server/api/instances-api'
import type { Grant } from '@/lib/auth/grants'
import { seesCluster, seesMirror, visibleAttention } from '@/lib/auth/visibility'
import { topologyLayoutFor, type TopologyLayout } from './topology-layout'

const log = logger.child({ module: 'page-prefetch' })

/** One answer for the page's dehydrated cache (components/data/prefetch.ts `Prefetched`). */
export interface PrefetchedAnswer {
  readonly endpoint: Endpoint
  readonly params?: Readonly<Record<string, string>>
  readonly value: unknown
}

interface Read {
  readonly endpoint: Endpoint
  readonly params?: Readonly<Record<string, string>>
  readonly read: () => unknown
}

/**
 * A page's first data, computed with the functions the route handlers call. A read that fails is left out
 * rather than failing the page: the client then asks the API itself and shows the error with a retry.
 */
async function settle(reads: readonly Read[]): Promise<PrefetchedAnswer[]> {
  const answers = await Promise.all(
    reads.map(async ({ endpoint, params, read }): Promise<PrefetchedAnswer | null> => {
      try {
        return { endpoint, ...(params === undefined ? {} : { params }), value: await read() }
      } catch (error) {
        log.warn('prefetch failed; the page loads it in the browser', { operationId: endpoint.operationId, error: error instanceof Error ? error.message : String(error) })
        return null
      }
    }),
  )
  return answers.filter((answer) => answer !== null)
}

/** The overview's first data, and the topology laid out for it (null when a list could not be read). */
// Filtered by the page's grants as the API filters the same lists (lib/auth/visibility.ts): a scoped person's
// first render holds nothing the API would not show them.
// Several instances: the mirrors and findings of every instance, asked of the others as the page's person (`principal`).
export async function overviewAnswers(runtime: Runtime, grants: readonly Grant[], principal?: unknown): Promise<{ answers: PrefetchedAnswer[]; layout: TopologyLayout | null }> {
  const api = mirrorApiOf(runtime)
  const ha = principal === undefined ? null : runtime.ha
  // The same requests the browser makes next (the same query), so the other instances answer what it would get.
  const asked = (path: string) => new Request(new URL(path, 'http://this-instance'))
  const attention = { limit: 50, staleAfterMs: DEFAULT_ATTENTION_THRESHOLDS.staleAfterMs }
  const answers = await settle([
    { endpoint: clusterEndpoints.listClusters, read: async () => ({ clusters: (await clusterApiOf(runtime).list()).filter((cluster) => seesCluster(grants, cluster.name)) }) },
    { endpoint: mirrorEndpoints.listMirrors, read: async () => visibleMirrors(grants, await withOtherInstances(ha, asked('/api/v1/mirrors'), principal, api.list())) },
    {
      endpoint: overviewEndpoints.attention,
      read: () => attentionEverywhere(ha, asked('/api/v1/attention'), principal, visibleAttention(grants, attentionOf(runtime.engine, attention)), attention.limit),
    },
    { endpoint: mirrorEndpoints.listOperations, read: () => ({ operations: api.operations(undefined).filter((operation) => seesMirror(grants, operation.mirror)) }) },
  ])
  const clusters = answers.find((answer) => answer.endpoint === clusterEndpoints.listClusters)?.value as { clusters: Cluster[] } | undefined
  const mirrors = answers.find((answer) => answer.endpoint === mirrorEndpoints.listMirrors)?.value as MirrorList | undefined
  return { answers, layout: clusters === undefined || mirrors === undefined ? null : topologyLayoutFor(clusters.clusters, mirrors.mirrors) }
}

/** null: no such cluster (the page answers 404). */
function visibleMirrors(grants: readonly Grant[], list: MirrorList): MirrorList {
  return { ...list, mirrors: list.mirrors.filter((mirror) => seesMirror(grants, mirror.name)) }
}

export async function clusterAnswers(runtime: Runtime, cluster: string, grants: readonly Grant[]): Promise<PrefetchedAnswer[] | null> {
  const clusterApi = clusterApiOf(runtime)
  if (!clusterApi.has(cluster)) return null
  const params = { cluster }
  return settle([
    { endpoint: clusterEndpoints.getCluster, params, read: () => clusterApi.describe(cluster) },
    { endpoint: clusterEndpoints.listTopics, params, read: async () => ({ topics: await clusterApi.listTopics(cluster) }) },
    { endpoint: clusterEndpoints.listGroups, params, read: async () => ({ groups: await clusterApi.listGroups(cluster) }) },
    { endpoint: mirrorEndpoints.listMirrors, read: () => visibleMirrors(grants, mirrorApiOf(runtime).list()) },
  ])
}

/** /instances: the instances sharing the mirroring work, as `GET /api/v1/instances` answers. */
export async function instancesAnswers(runtime: Runtime, grants: readonly Grant[]): Promise<PrefetchedAnswer[]> {
  return settle([{ endpoint: systemEndpoints.instances, read: () => instancesOf({ version: runtime.version, engine: runtime.engine, ha: runtime.ha }, grants) }])
}
