import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.createProducer, ({ runtime, params, body }) =>
  runtime.clusters.createProducer(params.cluster, body.transactionalId),
)
