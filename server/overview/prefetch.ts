import 'server-only'
import { DEFAULT_ATTENTION_THRESHOLDS } from '@/lib/overview/attention'
import { clusterEndpoints, mirrorEndpoints, overviewEndpoints, type Endpoint } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/engine/api-adapter'
import { logger } from '@/server/http/logger'
import type { Runtime } from '@/server/runtime'
import { attentionOf } from './attention'

const log = logger.child({ module: 'overview-prefetch' })

/** One answer for the page's dehydrated cache (components/data/prefetch.ts `Prefetched`). */
export interface PrefetchedAnswer {
  readonly endpoint: Endpoint
  readonly value: unknown
}

/**
 * The overview's first data, computed with the functions the route handlers call. A read that fails is left
 * out rather than failing the page: the client then asks the API itself and shows the error with a retry.
 */
export async function overviewAnswers(runtime: Runtime): Promise<PrefetchedAnswer[]> {
  const api = mirrorApiOf(runtime)
  const reads: Array<[Endpoint, () => unknown]> = [
    [clusterEndpoints.listClusters, async () => ({ clusters: await runtime.clusters.list() })],
    [mirrorEndpoints.listMirrors, () => api.list()],
    [overviewEndpoints.attention, () => attentionOf(runtime.engine, { limit: 50, staleAfterMs: DEFAULT_ATTENTION_THRESHOLDS.staleAfterMs })],
    [mirrorEndpoints.listOperations, () => ({ operations: api.operations(undefined) })],
  ]
  const answers = await Promise.all(
    reads.map(async ([endpoint, read]): Promise<PrefetchedAnswer | null> => {
      try {
        return { endpoint, value: await read() }
      } catch (error) {
        log.warn('prefetch failed; the page loads it in the browser', { operationId: endpoint.operationId, error: error instanceof Error ? error.message : String(error) })
        return null
      }
    }),
  )
  return answers.filter((answer) => answer !== null)
}
