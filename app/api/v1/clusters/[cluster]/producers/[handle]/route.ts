import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const DELETE = route(clusterEndpoints.closeProducer, ({ runtime, params }) => clusterApiOf(runtime).closeProducer(params.cluster, params.handle))
