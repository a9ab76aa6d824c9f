import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const DELETE = route(clusterEndpoints.closeProducer, ({ runtime, params }) => runtime.clusters.closeProducer(params.cluster, params.handle))
