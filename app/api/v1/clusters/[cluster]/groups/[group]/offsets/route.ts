import { clusterEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.commitGroupOffsets, async ({ runtime, params, body }) => {
  await clusterApiOf(runtime).commitGroupOffsets(params.cluster, params.group, body.offsets)
  return { ok: true } as const
})
