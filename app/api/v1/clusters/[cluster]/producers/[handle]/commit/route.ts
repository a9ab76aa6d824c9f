import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.producerCommit, async ({ runtime, params }) => {
  await clusterApiOf(runtime).endTransaction(params.cluster, params.handle, 'COMMIT')
  return { ok: true } as const
})
