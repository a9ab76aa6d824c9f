import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listTopics, async ({ runtime, params }) => ({
  topics: await clusterApiOf(runtime).listTopics(params.cluster),
}))

export const POST = route(clusterEndpoints.createTopic, ({ runtime, params, body }) => clusterApiOf(runtime).createTopic(params.cluster, body))
