import { clusterEndpoints } from '@/lib/api/endpoints'
import { topicAdminOf } from '@/server/api/topic-admin'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const DELETE = route(clusterEndpoints.deleteTopic, ({ runtime, params }) => topicAdminOf(runtime).deleteTopic(params.cluster, params.topic))
