import { alertEndpoints } from '@/lib/api/endpoints'
import { seesMirror } from '@/lib/auth/visibility'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some mirrors sees their silences only.
export const GET = route(alertEndpoints.listSilences, ({ runtime, principal }) => ({
  silences: runtime.alerts.listSilences().filter((silence) => seesMirror(principal.grants, silence.mirror)),
}))

// The mirror the body names decides who may silence it (an operator scoped to that mirror may).
export const POST = route(
  alertEndpoints.createSilence,
  ({ runtime, body, principal, requireGrant }) => {
    requireGrant({ mirror: body.mirror })
    return runtime.alerts.addSilence(body, principal.actor)
  },
  { scope: 'handler' },
)
