import { alertEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(alertEndpoints.testReceiver, async ({ runtime, params }) => ({ delivery: await runtime.alerts.testReceiver(params.name) }))
