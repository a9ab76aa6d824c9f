import { alertEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const DELETE = route(alertEndpoints.deleteReceiver, ({ runtime, params }) => runtime.alerts.deleteReceiver(params.name))
