import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.getCluster, ({ runtime, params }) => runtime.clusters.describe(params.cluster))
