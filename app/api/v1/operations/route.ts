import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { seesEverything, seesMirror } from '@/lib/auth/visibility'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some mirrors sees their operations only; the limit counts what it sees.
export const GET = route(mirrorEndpoints.listOperations, ({ runtime, query, principal }) => {
  const api = mirrorApiOf(runtime)
  if (seesEverything(principal.grants)) return { operations: api.operations(query) }
  const visible = api.operations({ ...query, limit: Number.MAX_SAFE_INTEGER }).filter((operation) => seesMirror(principal.grants, operation.mirror))
  return { operations: visible.slice(0, query.limit) }
})
