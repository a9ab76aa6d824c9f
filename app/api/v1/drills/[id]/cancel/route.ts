import { drillEndpoints } from '@/lib/api/endpoints'
import { cancelDrill, getDrill } from '@/server/api/drill-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// The drill's mirror decides who may cancel it (an operator scoped to that mirror may).
export const POST = route(
  drillEndpoints.cancelDrill,
  ({ runtime, params, requireGrant }) => {
    requireGrant({ mirror: getDrill(runtime, params.id).mirror })
    return cancelDrill(runtime, params.id)
  },
  { scope: 'handler' },
)
