import 'server-only'
import { ApiError } from '@/lib/api/errors'
import type { ForwardingRequest } from './forwarding-request'

/** The endpoints about one operation (`/operations/{id}` and below it: its report, its cancel; none has a body). */
const OPERATION_PATH = '/api/v1/operations/{id}'

/**
 * Requests about an operation by id, with several instances (issue #40; docs/high-availability.md): the operation is
 * run by the instance that runs its mirror, which answers it live; the id → mirror mapping comes from the operation's
 * shared record (server/ha/shared-operations.ts). Returns the owner's answer, or null to answer here: this instance
 * runs or keeps the operation, knows no shared record of it (NOT_FOUND here), or — for a read — the owner is dead or
 * does not answer, so the operation's last shared record answers until the mirror's new owner has taken it over (the
 * wizard keeps showing it). A change (cancel) is refused MIRROR_OWNER_UNAVAILABLE then, as a mirror's is. An id this
 * instance has not read yet is looked for on the topic first, so an operation just accepted elsewhere is found.
 */
export async function forwardOperation({ runtime, endpoint, request, params, principal, forwardedBy }: ForwardingRequest): Promise<Response | null> {
  const ha = runtime.ha
  const id = params.id
  const operations = ha?.operations
  if (!ha || !operations || typeof id !== 'string' || !endpoint.path.startsWith(OPERATION_PATH)) return null
  if (runtime.engine.holdsOperation(id)) return null
  if (operations.find(id) === null) await operations.refresh().catch(() => undefined)
  const record = operations.find(id)
  if (record === null) return null
  const place = ha.forwarding.placeOf(record.mirror)
  const read = request.method === 'GET'
  if (place.here) return null
  if (forwardedBy !== null) {
    if (read) return null
    throw new ApiError('MIRROR_OWNER_UNAVAILABLE', `instance ${ha.instanceId} no longer runs mirror ${record.mirror} (it moved to ${place.owner} meanwhile): retry`, {
      details: { owner: place.owner, url: place.url },
    })
  }
  try {
    return await ha.forwarding.forward(request, record.mirror, place, principal, null)
  } catch (error) {
    if (read) return null
    throw error
  }
}
