import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.producerAbort, async ({ runtime, params }) => {
  await runtime.clusters.endTransaction(params.cluster, params.handle, 'ABORT')
  return { ok: true } as const
})
