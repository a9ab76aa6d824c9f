import 'server-only'
import type { MutationConditions } from '@/server/engine/commands/mirror-mutations'
import { entityTag } from '@/server/engine/commands/state-version'
import { reply, type Reply } from './route'

/** The request's conditional headers that mirror mutations honour (If-Match). */
export function conditionsOf(request: Request): MutationConditions {
  return { ifMatch: request.headers.get('if-match') }
}

/** A 200 answer carrying the mirror's state version as its ETag. */
export function withStateVersion(body: unknown, stateVersion: string): Reply {
  return reply(200, body, { ETag: entityTag(stateVersion) })
}
