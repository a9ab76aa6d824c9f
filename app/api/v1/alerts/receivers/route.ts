import { alertEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(alertEndpoints.listReceivers, ({ runtime }) => ({ receivers: runtime.alerts.listReceivers() }))

// The server is reached at the request's address and at its configured URL: a receiver may point at neither.
export const POST = route(alertEndpoints.createReceiver, ({ runtime, body, url }) => runtime.alerts.addReceiver(body, [url, new URL(runtime.config.url)]))
