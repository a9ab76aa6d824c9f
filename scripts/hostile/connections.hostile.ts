// Issue #41 item 4: half-sent requests and piles of event streams must not hold the server's descriptors.
import http from 'node:http'
import net from 'node:net'
import { expect, it } from 'vitest'
import { bearer, healthLatency, target } from './support'

const { hostname, port } = new URL(target.url)

it('closes 300 half-sent requests by the header timeout, answering /health meanwhile', async () => {
  const started = performance.now()
  const closedAfter: number[] = []
  const sockets = Array.from({ length: 300 }, () => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: '127.0.0.41' })
    socket.on('connect', () => socket.write(`GET /api/v1/health HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: `))
    socket.on('error', () => {})
    // Read what the server answers (a 408), or the socket never sees the end of the stream and never closes.
    socket.resume()
    socket.on('close', () => closedAfter.push(performance.now() - started))
    return socket
  })
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(await healthLatency('127.0.0.42')).toBeLessThan(1000)
    const deadline = performance.now() + 25_000
    while (closedAfter.length < sockets.length && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250))
    expect(closedAfter.length, 'half-sent requests closed by the server within 25 s').toBe(sockets.length)
  } finally {
    for (const socket of sockets) socket.destroy()
  }
})

it('caps event streams per principal: 500 on one viewer token are not all accepted', async () => {
  const statuses: number[] = []
  const open: http.ClientRequest[] = []
  try {
    for (let n = 0; n < 500; n++) {
      const status = await new Promise<number>((resolve, reject) => {
        const request = http.get(
          { host: hostname, port, path: '/api/v1/events?types=partition', headers: bearer(target.viewerToken), localAddress: `127.0.0.${50 + (n % 10)}`, agent: false },
          (response) => {
            resolve(response.statusCode ?? 0)
            if (response.statusCode !== 200) response.resume()
          },
        )
        request.on('error', reject)
        open.push(request)
      })
      statuses.push(status)
    }
    const accepted = statuses.filter((status) => status === 200).length
    expect(accepted).toBeGreaterThan(0)
    expect(accepted).toBeLessThanOrEqual(64)
    expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(true)
    expect(await healthLatency('127.0.0.42')).toBeLessThan(1000)
  } finally {
    for (const request of open) request.destroy()
  }
})
