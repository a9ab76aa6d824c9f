import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listGroups, async ({ runtime, params }) => ({ groups: await runtime.clusters.listGroups(params.cluster) }))
