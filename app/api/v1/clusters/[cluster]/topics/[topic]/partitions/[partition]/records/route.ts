import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.readRecords, ({ runtime, params, query }) =>
  clusterApiOf(runtime).readRecords(params.cluster, params.topic, params.partition, query),
)
