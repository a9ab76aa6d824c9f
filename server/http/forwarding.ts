import 'server-only'
import { ApiError } from '@/lib/api/errors'
import type { Runtime } from '@/server/runtime'
import type { Authentication, Principal } from './auth'
import { forwardOperation } from './operation-owner'
import { forwardRecordById } from './forwarding-by-id'
import { forwardedBody, type ForwardingRequest } from './forwarding-request'

/**
 * The HTTP side of "one API from any instance" (server/ha/mirror-forwarding.ts, docs/high-availability.md): who
 * the caller is when another instance forwarded the request, and a mirror's request sent on to the instance that
 * runs it. Without MIRRORBOARD_CONTROL_BOOTSTRAP neither applies and every request is answered as always.
 */

/** The caller, from the vouching instance's signed header on a forwarded request, else from its own credentials. */
export async function authenticateCaller(runtime: Runtime, request: Request): Promise<{ authentication: Authentication; forwardedBy: string | null }> {
  const forwarded = runtime.ha?.forwarding.forwardedCaller(request) ?? null
  if (forwarded === null) return { authentication: await runtime.auth.authenticateShared(request), forwardedBy: null }
  if ('refused' in forwarded) return { authentication: { status: 'invalid', message: forwarded.refused }, forwardedBy: null }
  // The forwarding instance checked any cookie's Origin; between instances the caller is vouched for, not a browser's cookie.
  return { authentication: { status: 'authenticated', principal: { ...(forwarded.principal as Principal), via: 'bearer' } }, forwardedBy: forwarded.from }
}

/**
 * A request naming a mirror this instance does not run: the owner's answer (null when it runs here, or when nobody
 * is known to run it: then it is answered here, NOT_FOUND for a mirror that does not exist). A request another
 * instance forwarded is never sent on again.
 */
export async function forwardToOwner(asked: ForwardingRequest): Promise<Response | null> {
  const { runtime, request, params, principal, forwardedBy } = asked
  const ha = runtime.ha
  const mirror = params.mirror
  const keeper = await forwardRecordById(asked)
  if (keeper !== null) return keeper
  // A request about an operation goes where its mirror runs (operation-owner.ts).
  if (ha && typeof mirror !== 'string') return forwardOperation(asked)
  if (!ha || typeof mirror !== 'string') return null
  const place = ha.forwarding.placeOf(mirror)
  if (place.here) return null
  if (forwardedBy !== null) {
    throw new ApiError('MIRROR_OWNER_UNAVAILABLE', `instance ${ha.instanceId} no longer runs mirror ${mirror} (it moved to ${place.owner} meanwhile): retry`, {
      details: { owner: place.owner, url: place.url },
    })
  }
  return ha.forwarding.forward(request, mirror, place, principal, await forwardedBody(asked))
}
