import 'server-only'
import type { WriteFence } from '../ports'

/**
 * Who set a planned switchover's fence on a Kafka topic, kept in the cluster itself (issue #34): the fence's
 * DENY WRITE for `User:*` is the same binding that keeps a mirror topic read-only, so it cannot tell its owner.
 * Beside it goes one more DENY WRITE on the topic, for a principal nobody authenticates as, whose name records
 * the mirror, the operation and the time:
 *
 *   User:mirrorboard-fence/<mirror>/<operation>/<since>
 *
 * Listing the topic ACLs then lists the fences (a restarted server, or `kafka-acls.sh --list`, sees who fenced
 * what), and lifting one mirror's fence deletes exactly its own marker. Mirror names have no '/'
 * (lib/mirror/names.ts); the operation id is the part between the second and the last '/'.
 */
export const FENCE_PRINCIPAL_PREFIX = 'User:mirrorboard-fence/'

export function fencePrincipal(fence: { mirror: string; operation: string; since: number }): string {
  return `${FENCE_PRINCIPAL_PREFIX}${fence.mirror}/${fence.operation}/${fence.since}`
}

/** The fence a marker principal names, or null when the principal is not a fence marker. */
export function readFencePrincipal(topic: string, principal: string): WriteFence | null {
  if (!principal.startsWith(FENCE_PRINCIPAL_PREFIX)) return null
  const rest = principal.slice(FENCE_PRINCIPAL_PREFIX.length)
  const first = rest.indexOf('/')
  const last = rest.lastIndexOf('/')
  if (first <= 0 || last <= first + 1) return null
  const digits = rest.slice(last + 1)
  if (!/^\d{1,16}$/.test(digits)) return null
  const since = Number(digits)
  return { topic, mirror: rest.slice(0, first), operation: rest.slice(first + 1, last), since }
}
