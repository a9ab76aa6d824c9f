import { alertEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(alertEndpoints.listAlerts, ({ runtime, query }) => ({ alerts: runtime.alerts.list(query) }))
