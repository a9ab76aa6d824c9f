import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { seesCluster } from '@/lib/auth/visibility'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some clusters sees those only (lib/auth/visibility.ts).
export const GET = route(clusterEndpoints.listClusters, async ({ runtime, principal }) => ({
  clusters: (await clusterApiOf(runtime).list()).filter((cluster) => seesCluster(principal.grants, cluster.name)),
}))

export const POST = route(clusterEndpoints.createCluster, ({ runtime, body }) => clusterApiOf(runtime).create(body))
