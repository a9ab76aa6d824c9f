import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { withStateVersion } from '@/server/http/conditional'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.listMirrorPartitions, ({ runtime, params, query }) => {
  const api = mirrorApiOf(runtime)
  const partitions = api.partitions(params.mirror, query)
  const stateVersion = api.stateVersion(params.mirror)
  return withStateVersion({ partitions, stateVersion }, stateVersion)
})
