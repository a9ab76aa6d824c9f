import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.getTopicConfigs, ({ runtime, params }) => clusterApiOf(runtime).configs(params.cluster, params.topic))

export const PATCH = route(clusterEndpoints.patchTopicConfigs, ({ runtime, params, body }) => clusterApiOf(runtime).updateConfigs(params.cluster, params.topic, body))
