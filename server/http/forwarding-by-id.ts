import 'server-only'
import { ApiError } from '@/lib/api/errors'
import { findRecordHolder } from '@/server/ha/record-finder'
import { forwardingKey } from '@/server/ha/forwarded-caller'
import type { Runtime } from '@/server/runtime'
import { forwardedBody, type ForwardingRequest } from './forwarding-request'

/**
 * Drills and verifications looked up by id (`/drills/{id}`, `/verifications/{id}` and below) from any instance
 * (docs/high-availability.md, "One API from any instance"): one this instance does not keep is looked for on the
 * other live instances (server/ha/record-finder.ts) and the request is sent to the one that keeps it, as a mirror's
 * request is sent to its owner. A forwarded request is answered where it lands.
 */
const BY_ID = /^\/api\/v1\/(drills|verifications)\/\{id\}/

export async function forwardRecordById(asked: ForwardingRequest): Promise<Response | null> {
  const { runtime, endpoint, request, params, principal, forwardedBy } = asked
  const ha = runtime.ha
  const kind = BY_ID.exec(endpoint.path)?.[1]
  const id = params.id
  if (!ha || kind === undefined || typeof id !== 'string' || forwardedBy !== null) return null
  if (keptHere(runtime, kind, id)) return null
  const what = `${kind === 'drills' ? 'drill' : 'verification'} ${id}`
  const holder = await findRecordHolder({ self: ha.instanceId, key: forwardingKey(ha.config.secretKey), instances: () => ha.instances() }, `/api/v1/${kind}/${encodeURIComponent(id)}`, principal)
  if (!holder.found) {
    const [missing] = holder.missing
    if (missing === undefined) return null // nowhere: NOT_FOUND, answered here
    throw new ApiError('MIRROR_OWNER_UNAVAILABLE', `${what} is not on instance ${ha.instanceId}, and instance ${missing.instance} did not answer: it may be kept there; retry, or ask it directly`, {
      details: { owner: missing.instance, url: missing.url },
    })
  }
  const body = await forwardedBody(asked)
  const mirror = (holder.answer as { mirror?: unknown } | null)?.mirror
  try {
    return await ha.forwarding.forward(request, typeof mirror === 'string' ? mirror : what, { here: false, owner: holder.instance, url: holder.url, alive: true }, principal, body)
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'MIRROR_OWNER_UNAVAILABLE') throw error
    throw new ApiError('MIRROR_OWNER_UNAVAILABLE', `${what} is kept by instance ${holder.instance} (${holder.url}), which did not answer: retry, or ask it directly`, {
      cause: error,
      details: { owner: holder.instance, url: holder.url },
    })
  }
}

function keptHere(runtime: Runtime, kind: string, id: string): boolean {
  try {
    if (kind === 'drills') runtime.drills.get(id)
    else runtime.verifier.get(id)
    return true
  } catch {
    return false
  }
}
