import { clusterEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(clusterEndpoints.commitGroupOffsets, async ({ runtime, params, body }) => {
  await runtime.clusters.commitGroupOffsets(params.cluster, params.group, body.offsets)
  return { ok: true } as const
})
