import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.getCluster, ({ runtime, params }) => clusterApiOf(runtime).describe(params.cluster))

export const DELETE = route(clusterEndpoints.deleteCluster, ({ runtime, params }) => clusterApiOf(runtime).remove(params.cluster))
