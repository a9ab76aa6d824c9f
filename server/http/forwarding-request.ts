import 'server-only'
import type { Endpoint } from '@/lib/api/endpoints'
import type { Runtime } from '@/server/runtime'
import type { Principal } from './auth'
import { readJsonBody } from './request'

/**
 * One request as the forwarding resolvers see it (forwarding.ts: a mirror's, operation-owner.ts: an operation's,
 * forwarding-by-id.ts: a drill's or verification's): what it asks, of which instance, and who asks. `forwardedBy` is
 * the instance that sent it on to this one, null when it came from a client.
 */
export interface ForwardingRequest {
  runtime: Runtime
  endpoint: Endpoint
  request: Request
  params: Record<string, string | string[] | undefined>
  principal: Principal | null
  forwardedBy: string | null
}

/** The body to send on: read (and bounded) as this instance would read it; the receiving instance parses and validates it. */
export async function forwardedBody({ endpoint, request }: ForwardingRequest): Promise<ArrayBuffer | null> {
  if (!endpoint.body) return null
  const read = await readJsonBody(request)
  if (!read.ok) throw read.error
  return new TextEncoder().encode(JSON.stringify(read.value)).buffer
}
