import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listClusters, async ({ runtime }) => ({ clusters: await clusterApiOf(runtime).list() }))

export const POST = route(clusterEndpoints.createCluster, ({ runtime, body }) => clusterApiOf(runtime).create(body))
