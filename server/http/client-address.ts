/**
 * The address a request came from, as server/main.ts found it: the socket's peer, or with
 * MIRRORBOARD_TRUST_PROXY=1 the client the proxy names. Rate limits and the audit log's collapsing of
 * anonymous refusals key on it. main.ts overwrites whatever a client sent in this header; without main.ts
 * (`next start`, tests) there is none and every request counts as one source, `unknown`.
 * No `server-only` marker: main.ts imports it outside Next's bundles.
 */
export const CLIENT_ADDRESS_HEADER = 'x-mirrorboard-client-address'

export function clientAddressOf(request: Request): string {
  return request.headers.get(CLIENT_ADDRESS_HEADER) || 'unknown'
}
