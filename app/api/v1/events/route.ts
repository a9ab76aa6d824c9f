import { systemEndpoints } from '@/lib/api/endpoints'
import { seesEvent } from '@/lib/auth/visibility'
import { eventStreamResponse } from '@/server/http/events'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'
// A long-lived stream fed by the in-process hub: Node only.
export const runtime = 'nodejs'

// Several instances: the hub also carries the other instances' events (server/ha/event-relay.ts); another instance's
// relay (a forwarded caller) gets this instance's own only, so nothing goes round in circles.
export const GET = route(systemEndpoints.events, ({ runtime, request, query, principal }) =>
  eventStreamResponse(runtime.events, request, {
    owner: principal.actor,
    ...(query.types ? { types: query.types } : {}),
    ...(query.lastEventId !== undefined ? { lastEventId: query.lastEventId } : {}),
    ...(runtime.ha?.forwarding.isForwarded(request) ? { ownOnly: true } : {}),
    visible: (event) => seesEvent(principal.grants, principal.actor, event.type, event.data),
  }),
)
