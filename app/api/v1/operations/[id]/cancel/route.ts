import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// The operation's mirror decides who may cancel it (an operator scoped to that mirror may).
export const POST = route(
  mirrorEndpoints.cancelOperation,
  ({ runtime, params, principal, requireGrant }) => {
    const api = mirrorApiOf(runtime)
    requireGrant({ mirror: api.operation(params.id).mirror })
    return api.cancelOperation(params.id, principal.actor)
  },
  { scope: 'handler' },
)
