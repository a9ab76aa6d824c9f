import { systemEndpoints } from '@/lib/api/endpoints'
import { eventStreamResponse } from '@/server/http/events'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'
// A long-lived stream fed by the in-process hub: Node only.
export const runtime = 'nodejs'

export const GET = route(systemEndpoints.events, ({ runtime, request, query, principal }) =>
  eventStreamResponse(runtime.events, request, {
    owner: principal.actor,
    ...(query.types ? { types: query.types } : {}),
    ...(query.lastEventId !== undefined ? { lastEventId: query.lastEventId } : {}),
  }),
)
