import http from 'node:http'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { connectionLimitsFrom, DEFAULT_CONNECTION_LIMITS, limitConnections, serverOptions, type ConnectionLimits } from './connection-limits'

/** Issue #41 item 4, on a plain Node server with small limits (scripts/hostile/connections.hostile.ts attacks the real one). */

const servers: http.Server[] = []
const sockets: net.Socket[] = []
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

async function serve(limits: ConnectionLimits): Promise<number> {
  const server = http.createServer(serverOptions(limits), (_request, response) => response.end('ok'))
  limitConnections(server, limits)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as net.AddressInfo).port
}

function halfSent(port: number): Promise<number> {
  const started = Date.now()
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    sockets.push(socket)
    socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: '))
    socket.on('error', () => {})
    // Read what the server answers (a 408), or the socket never sees the end of the stream and never closes.
    socket.resume()
    socket.on('close', () => resolve(Date.now() - started))
  })
}

describe('connection limits', () => {
  it('closes a request whose headers do not arrive within the header timeout', async () => {
    const port = await serve({ ...DEFAULT_CONNECTION_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 1000, connectionsCheckingIntervalMs: 100 })
    const closedAfter = await halfSent(port)
    expect(closedAfter).toBeGreaterThanOrEqual(250)
    expect(closedAfter).toBeLessThan(5000)
  })

  it('closes connections beyond the cap per address at once', async () => {
    const port = await serve({ ...DEFAULT_CONNECTION_LIMITS, maxConnectionsPerAddress: 3 })
    const closes = Array.from({ length: 5 }, () => halfSent(port))
    const first = await Promise.race(closes)
    expect(first).toBeLessThan(1000)
    const stillOpen = await Promise.race([Promise.all(closes).then(() => false), new Promise((resolve) => setTimeout(resolve, 500, true))])
    expect(stillOpen).toBe(true)
  })

  it('reads its caps from the environment, with none per address behind a trusted proxy', () => {
    expect(connectionLimitsFrom({}, false).maxConnectionsPerAddress).toBe(64)
    expect(connectionLimitsFrom({}, true).maxConnectionsPerAddress).toBe(0)
    expect(connectionLimitsFrom({ MIRRORBOARD_MAX_CONNECTIONS: '100', MIRRORBOARD_MAX_CONNECTIONS_PER_ADDRESS: '10' }, true)).toMatchObject({ maxConnections: 100, maxConnectionsPerAddress: 10 })
    expect(() => connectionLimitsFrom({ MIRRORBOARD_MAX_CONNECTIONS: 'lots' }, false)).toThrow(/MIRRORBOARD_MAX_CONNECTIONS/)
  })
})
