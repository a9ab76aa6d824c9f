import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listPartitions, async ({ runtime, params }) => ({
  partitions: await clusterApiOf(runtime).listPartitions(params.cluster, params.topic),
}))

export const POST = route(clusterEndpoints.createPartitions, ({ runtime, params, body }) => clusterApiOf(runtime).createPartitions(params.cluster, params.topic, body.count))
