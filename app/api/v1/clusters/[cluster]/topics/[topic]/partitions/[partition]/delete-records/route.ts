import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.deleteRecords, ({ runtime, params, body }) => clusterApiOf(runtime).deleteRecords(params.cluster, params.topic, params.partition, body))
