import { clusterEndpoints } from '@/lib/api/endpoints'
import { topicAdminOf } from '@/server/api/topic-admin'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.getTopicConfigs, ({ runtime, params }) => topicAdminOf(runtime).configs(params.cluster, params.topic))

export const PATCH = route(clusterEndpoints.patchTopicConfigs, ({ runtime, params, body }) => topicAdminOf(runtime).updateConfigs(params.cluster, params.topic, body))
