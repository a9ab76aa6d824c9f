import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listTopics, async ({ runtime, params }) => ({
  topics: await runtime.clusters.listTopics(params.cluster),
}))

export const POST = route(clusterEndpoints.createTopic, ({ runtime, params, body }) => runtime.clusters.createTopic(params.cluster, body))
