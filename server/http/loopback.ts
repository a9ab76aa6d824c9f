import 'server-only'

/**
 * The peer address of the connection, set by server/main.ts from the socket (a client's own header of that
 * name is overwritten there, and left empty for proxied requests): X-Forwarded-For is the client's to write.
 */
export const PEER_ADDRESS_HEADER = 'x-mirrorboard-peer-address'

function isLoopbackAddress(address: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) || address === '::1' || /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address)
}

function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '').toLowerCase()
  return name === 'localhost' || name === '[::1]' || isLoopbackAddress(name)
}

/**
 * True for a request made on this machine to a loopback name: the connection comes from loopback, and the
 * Host header names loopback too, so a page of another site whose name was rebound to 127.0.0.1 (DNS
 * rebinding) gets no session for its origin.
 */
export function isLoopbackRequest(request: Request): boolean {
  const peer = request.headers.get(PEER_ADDRESS_HEADER)
  const host = request.headers.get('host')
  return peer !== null && isLoopbackAddress(peer) && host !== null && isLoopbackHost(host)
}
