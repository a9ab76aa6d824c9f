import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.produce, ({ runtime, params, body }) => runtime.clusters.produce(params.cluster, params.topic, body))
