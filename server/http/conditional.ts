import 'server-only'
import type { CommandConditions, StateVersionCondition } from '@/server/api/mirror-api'
import { reply, type Reply } from './route'

/**
 * A mirror's state version on the wire (KIP-1279's StateOffset, server/engine/commands/state-version.ts): GET
 * answers it as a strong ETag, and a mutation's If-Match becomes the command's state-version precondition,
 * which the engine checks in the mirror's command queue.
 */

/** The ETag header value of a version (a strong entity tag). */
export function entityTag(version: string): string {
  return `"${version}"`
}

/**
 * The versions an If-Match header admits (RFC 9110 §13.1.1): `*` admits any (no precondition), otherwise the
 * strong entity tags it lists; weak or malformed tags admit none, so such a header always fails.
 */
export function stateVersionCondition(header: string | null): StateVersionCondition | undefined {
  if (header === null) return undefined
  const value = header.trim()
  if (value === '*') return undefined
  const anyOf = value
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"'))
    .map((tag) => tag.slice(1, -1))
  return { anyOf, asSent: header }
}

/** The request's conditional headers that mirror commands honour (If-Match), as the commands' preconditions. */
export function conditionsOf(request: Request): CommandConditions {
  const stateVersion = stateVersionCondition(request.headers.get('if-match'))
  return stateVersion === undefined ? {} : { stateVersion }
}

/** A 200 answer carrying the mirror's state version as its ETag. */
export function withStateVersion(body: unknown, stateVersion: string): Reply {
  return reply(200, body, { ETag: entityTag(stateVersion) })
}
