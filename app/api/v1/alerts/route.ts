import { alertEndpoints } from '@/lib/api/alert-endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(alertEndpoints.listAlerts, ({ runtime, query }) => ({ alerts: runtime.alerts.list(query) }))
