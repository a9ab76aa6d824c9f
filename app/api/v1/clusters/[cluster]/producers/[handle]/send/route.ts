import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.producerSend, ({ runtime, params, body }) =>
  clusterApiOf(runtime).producerSend(params.cluster, params.handle, body),
)
