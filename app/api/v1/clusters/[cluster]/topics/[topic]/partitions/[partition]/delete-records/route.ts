import { clusterEndpoints } from '@/lib/api/endpoints'
import { topicAdminOf } from '@/server/api/topic-admin'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.deleteRecords, ({ runtime, params, body }) => topicAdminOf(runtime).deleteRecords(params.cluster, params.topic, params.partition, body))
