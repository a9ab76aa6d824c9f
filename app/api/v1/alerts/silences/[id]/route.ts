import { alertEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// The silenced mirror decides who may end the silence (an operator scoped to that mirror may).
export const DELETE = route(
  alertEndpoints.deleteSilence,
  ({ runtime, params, requireGrant }) => {
    requireGrant({ mirror: runtime.alerts.activeSilence(params.id).mirror })
    return runtime.alerts.deleteSilence(params.id)
  },
  { scope: 'handler' },
)
