import { alertEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(alertEndpoints.listSilences, ({ runtime }) => ({ silences: runtime.alerts.listSilences() }))

export const POST = route(alertEndpoints.createSilence, ({ runtime, body, principal }) => runtime.alerts.addSilence(body, principal.actor))
