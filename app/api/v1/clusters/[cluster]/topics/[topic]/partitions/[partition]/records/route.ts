import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.readRecords, ({ runtime, params, query }) =>
  runtime.clusters.readRecords(params.cluster, params.topic, params.partition, query),
)
