import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// The operation's mirror decides who may read it (a scoped viewer sees its own mirrors' operations only).
export const GET = route(
  mirrorEndpoints.getOperation,
  ({ runtime, params, requireGrant }) => {
    const operation = mirrorApiOf(runtime).operation(params.id)
    requireGrant({ mirror: operation.mirror })
    return operation
  },
  { scope: 'handler' },
)
