// No `server-only` marker: server/main.ts imports this outside Next's bundles.
import type { IncomingHttpHeaders } from 'node:http'

/**
 * `X-Forwarded-*` and `Forwarded` say what a proxy in front saw: the client's address, the scheme (TLS or not)
 * and the host it was asked for. Anyone can send them, so they are believed only with
 * MIRRORBOARD_TRUST_PROXY=1 (a proxy that sets them is the only way in); otherwise server/main.ts removes them
 * before anything reads them: the session cookie's Secure flag and name, HSTS, the same-origin check of
 * cookie-authenticated changes, the address rate limits and the audit log key on.
 */
export const PROXY_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'forwarded'] as const

/**
 * Removes the proxy headers unless trusted; returns the client's address: with a trusted proxy the last
 * `X-Forwarded-For` entry (the one that proxy appended), else the socket's peer.
 */
export function applyProxyTrust(headers: IncomingHttpHeaders, socketAddress: string, trustProxy: boolean): string {
  if (!trustProxy) {
    for (const name of PROXY_HEADERS) delete headers[name]
    return socketAddress
  }
  const forwardedFor = headers['x-forwarded-for']
  const list = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '')).split(',')
  const last = list.map((entry) => entry.trim()).filter((entry) => entry !== '').at(-1)
  return last ?? socketAddress
}
