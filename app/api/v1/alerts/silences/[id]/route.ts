import { alertEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const DELETE = route(alertEndpoints.deleteSilence, ({ runtime, params }) => runtime.alerts.deleteSilence(params.id))
