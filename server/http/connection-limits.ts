// No `server-only` marker: server/main.ts imports this outside Next's bundles.
import type http from 'node:http'
import type { Socket } from 'node:net'

/**
 * Timeouts and caps of the HTTP server itself (issue #41 item 4). Node's defaults let a client take 60 s to
 * send its headers and 300 s for a request, with no limit on connections: 300 half-sent requests were all still
 * open after 20 s, holding descriptors the embedded brokers need for their segment files.
 *
 * - headers within `headersTimeoutMs`, a whole request (body included) within `requestTimeoutMs`: both are
 *   about receiving the request, so a long answer (the event stream) is not cut by them; Node checks every
 *   `connectionsCheckingIntervalMs`;
 * - an idle kept-alive connection closed after `keepAliveTimeoutMs`: longer than the idle timeout of the clients
 *   and load balancers in front (60 s on most), since a client that reuses a connection the moment the server
 *   closes it gets ECONNRESET on a request that was never read (Node's 5 s default did that to a browser
 *   journey's API call 5 s after its previous one);
 * - at most `maxConnections` open at once, and `maxConnectionsPerAddress` from one address (not applied when
 *   a trusted proxy is the one address every request comes from).
 */
export interface ConnectionLimits {
  headersTimeoutMs: number
  requestTimeoutMs: number
  connectionsCheckingIntervalMs: number
  keepAliveTimeoutMs: number
  maxConnections: number
  /** 0: no cap per address (behind a trusted proxy). */
  maxConnectionsPerAddress: number
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  connectionsCheckingIntervalMs: 1_000,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 512,
  maxConnectionsPerAddress: 64,
}

function positiveInteger(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const text = env[name]?.trim()
  if (!text) return fallback
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, not ${JSON.stringify(text)}`)
  return value
}

/** MIRRORBOARD_MAX_CONNECTIONS and MIRRORBOARD_MAX_CONNECTIONS_PER_ADDRESS override the caps. */
export function connectionLimitsFrom(env: Readonly<Record<string, string | undefined>>, trustProxy: boolean): ConnectionLimits {
  return {
    ...DEFAULT_CONNECTION_LIMITS,
    maxConnections: positiveInteger(env, 'MIRRORBOARD_MAX_CONNECTIONS', DEFAULT_CONNECTION_LIMITS.maxConnections),
    maxConnectionsPerAddress: positiveInteger(env, 'MIRRORBOARD_MAX_CONNECTIONS_PER_ADDRESS', trustProxy ? 0 : DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress),
  }
}

/** The options of `http.createServer` that carry the timeouts. */
export function serverOptions(limits: ConnectionLimits): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
  }
}

/** Applies the connection caps; a connection beyond one is closed at once, before it is read. */
export function limitConnections(server: http.Server, limits: ConnectionLimits, onRefused?: (reason: 'total' | 'address', address: string) => void): void {
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections
  server.on('drop', (data?: { remoteAddress?: string }) => onRefused?.('total', data?.remoteAddress ?? ''))
  if (limits.maxConnectionsPerAddress <= 0) return
  const open = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? ''
    const count = (open.get(address) ?? 0) + 1
    if (count > limits.maxConnectionsPerAddress) {
      onRefused?.('address', address)
      socket.destroy()
      return
    }
    open.set(address, count)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left <= 0) open.delete(address)
      else open.set(address, left)
    })
  })
}
