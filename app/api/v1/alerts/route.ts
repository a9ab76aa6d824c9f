import { alertEndpoints } from '@/lib/api/endpoints'
import { seesMirror } from '@/lib/auth/visibility'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some mirrors sees their alerts only.
export const GET = route(alertEndpoints.listAlerts, ({ runtime, query, principal }) => ({
  alerts: runtime.alerts.list(query).filter((alert) => seesMirror(principal.grants, alert.mirror)),
}))
