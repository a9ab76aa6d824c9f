import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listClusters, async ({ runtime }) => ({ clusters: await runtime.clusters.list() }))

export const POST = route(clusterEndpoints.createCluster, ({ runtime, body }) => runtime.clusters.create(body))
