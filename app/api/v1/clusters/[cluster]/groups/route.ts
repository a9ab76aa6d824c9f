import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(clusterEndpoints.listGroups, async ({ runtime, params }) => ({ groups: await clusterApiOf(runtime).listGroups(params.cluster) }))
