import { clusterEndpoints } from '@/lib/api/endpoints'
import { topicAdminOf } from '@/server/api/topic-admin'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listPartitions, async ({ runtime, params }) => ({
  partitions: await runtime.clusters.listPartitions(params.cluster, params.topic),
}))

export const POST = route(clusterEndpoints.createPartitions, ({ runtime, params, body }) => topicAdminOf(runtime).createPartitions(params.cluster, params.topic, body.count))
