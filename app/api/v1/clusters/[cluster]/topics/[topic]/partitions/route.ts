import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listPartitions, async ({ runtime, params }) => ({
  partitions: await runtime.clusters.listPartitions(params.cluster, params.topic),
}))
