import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.producerAbort, async ({ runtime, params }) => {
  await clusterApiOf(runtime).endTransaction(params.cluster, params.handle, 'ABORT')
  return { ok: true } as const
})
