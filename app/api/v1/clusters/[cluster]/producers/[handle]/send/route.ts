import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.producerSend, ({ runtime, params, body }) =>
  runtime.clusters.producerSend(params.cluster, params.handle, body),
)
