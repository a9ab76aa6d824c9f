import 'server-only'
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/**
 * Who asked, as one instance vouches for it to another when it forwards a mirror's request to the mirror's owner
 * (docs/high-availability.md, "One API from any instance"). The instance the caller reached has authenticated and
 * authorised the caller already; the owner must still record the person in its audit log and check the person's
 * grants, but it may know neither the caller's API token (named tokens and sessions live in one instance's data
 * directory) nor its session. So the caller's credentials are never passed on: the forwarding instance sends the
 * principal it established, bound to the request's method and path and to a short expiry, and signs it with
 * HMAC-SHA256 under a key derived from MIRRORBOARD_SECRET_KEY, which every instance of the group holds and nobody
 * else does.
 */
export const FORWARDED_HEADER = 'x-mirrorboard-forwarded'

/** Long enough for a request in flight between two instances, short enough that a captured header is soon worthless. */
const VALID_FOR_MS = 60_000

export interface ForwardedCaller {
  /** The principal the forwarding instance established (server/http/auth.ts's Principal, as JSON). */
  principal: unknown
  /** The forwarding instance's id. */
  from: string
  method: string
  /** Path and query the claim is good for. */
  path: string
  expiresAt: number
}

export function forwardingKey(secretKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'mirrorboard-request-forwarding-v1', 'forwarded caller', 32))
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload, 'utf8').digest()
}

export function signForwardedCaller(key: Buffer, caller: Omit<ForwardedCaller, 'expiresAt'>, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ ...caller, expiresAt: now + VALID_FOR_MS }), 'utf8').toString('base64url')
  return `${payload}.${mac(key, payload).toString('base64url')}`
}

/** The caller the header vouches for, or why it does not (a wrong key, altered, expired, for another request). */
export function verifyForwardedCaller(key: Buffer, header: string, request: { method: string; path: string }, now = Date.now()): ForwardedCaller | { refused: string } {
  const [payload, signature, ...rest] = header.split('.')
  if (!payload || !signature || rest.length > 0) return { refused: 'the forwarded request’s caller is malformed' }
  const expected = mac(key, payload)
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { refused: 'the forwarded request’s caller is not signed with this group’s MIRRORBOARD_SECRET_KEY' }
  }
  let caller: ForwardedCaller
  try {
    caller = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ForwardedCaller
  } catch {
    return { refused: 'the forwarded request’s caller is malformed' }
  }
  if (typeof caller.expiresAt !== 'number' || caller.expiresAt < now) return { refused: 'the forwarded request’s caller has expired' }
  if (caller.method !== request.method || typeof caller.path !== 'string' || canonicalPath(caller.path) !== canonicalPath(request.path)) {
    return { refused: 'the forwarded request’s caller was signed for another request' }
  }
  return caller
}

/**
 * The path with its query as URLSearchParams writes it: a server may hand a route the query re-encoded (Next.js
 * answers `?types=partition%2Clag` for the `?types=partition,lag` that was signed), which is the same request.
 */
function canonicalPath(path: string): string {
  const at = path.indexOf('?')
  if (at < 0) return path
  const query = new URLSearchParams(path.slice(at + 1)).toString()
  return query === '' ? path.slice(0, at) : `${path.slice(0, at)}?${query}`
}
