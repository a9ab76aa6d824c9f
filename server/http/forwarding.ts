import 'server-only'
import { ApiError } from '@/lib/api/errors'
import type { Endpoint } from '@/lib/api/endpoints'
import type { Runtime } from '@/server/runtime'
import type { Authentication, Principal } from './auth'
import { forwardOperation } from './operation-owner'
import { readJsonBody } from './request'
import { forwardRecordById } from './forwarding-by-id'

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
export async function forwardToOwner(
  runtime: Runtime,
  endpoint: Endpoint,
  request: Request,
  params: Record<string, string | string[] | undefined>,
  principal: Principal | null,
  forwardedBy: string | null,
): Promise<Response | null> {
  const ha = runtime.ha
  const mirror = params.mirror
  const keeper = await forwardRecordById(runtime, endpoint, request, params, principal, forwardedBy)
  if (keeper !== null) return keeper
  // A request about an operation goes where its mirror runs (operation-owner.ts).
  if (ha && typeof mirror !== 'string') return forwardOperation(runtime, endpoint, request, params, principal, forwardedBy)
  if (!ha || typeof mirror !== 'string') return null
  const place = ha.forwarding.placeOf(mirror)
  if (place.here) return null
  if (forwardedBy !== null) {
    throw new ApiError('MIRROR_OWNER_UNAVAILABLE', `instance ${ha.instanceId} no longer runs mirror ${mirror} (it moved to ${place.owner} meanwhile): retry`, {
      details: { owner: place.owner, url: place.url },
    })
  }
  let body: string | null = null
  if (endpoint.body) {
    // Read (and bounded) as this instance would read it; the owner parses and validates it.
    const read = await readJsonBody(request)
    if (!read.ok) throw read.error
    body = JSON.stringify(read.value)
  }
  return ha.forwarding.forward(request, mirror, place, principal, body === null ? null : new TextEncoder().encode(body).buffer)
}
