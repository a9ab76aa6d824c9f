import { clusterEndpoints } from '@/lib/api/endpoints'
import { removeCluster } from '@/server/api/cluster-removal'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.getCluster, ({ runtime, params }) => runtime.clusters.describe(params.cluster))

export const DELETE = route(clusterEndpoints.deleteCluster, ({ runtime, params }) => removeCluster(runtime, params.cluster))
