// The production server: Next.js's request handler behind our own HTTP server. `npm start` runs it compiled
// (dist/main.js, built by `npm run build` with tsconfig.server.json, so a production install needs no tsx);
// the demo and the tests run it as `node --import tsx server/main.ts [-H host] [-p port]` (what `next start`
// took, PORT and HOSTNAME too). Only relative imports here: tsc does not rewrite the '@/' alias.
//
// It sets the security headers of every answer (server/http/security-headers.ts), Next's included. And it
// exists for compression. `next start` gzips at zlib's level 6 with no way to set it, and a route handler
// cannot answer compressed bytes itself (Next drops the Content-Encoding it sets). A 10,000-partition list is
// 4.6 MB of JSON: level 6 costs ~38 ms of CPU a request on these machines (190 KB). Here browsers get brotli
// at quality 2 (~10 ms, 27 KB) and other gzip clients level 1 (~14 ms, 257 KB; nginx's default level).
import http from 'node:http'
import path from 'node:path'
import { Duplex } from 'node:stream'
import { TLSSocket } from 'node:tls'
import zlib from 'node:zlib'
import compression from 'compression'
import { randomUUID } from 'node:crypto'
import { CLIENT_ADDRESS_HEADER } from './http/client-address'
import { connectionLimitsFrom, limitConnections, serverOptions } from './http/connection-limits'
import { applyProxyTrust } from './http/proxy-headers'
import { listenAddress } from './http/listen-address'
import { hasMalformedPath, NOT_FOUND_PAGE_PATH } from './http/request-path'
import { fitScavengesToCores } from './util/scavenge'
import { NONCE_REQUEST_HEADER, isTlsRequest, newNonce, securityHeaders } from './http/security-headers'

/** A proxy's request id is kept when it looks like one; otherwise each request gets its own. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

/**
 * A client that goes away mid-response (an SSE viewer closing its tab) leaves the middleware's zlib stream
 * open for good. The middleware hands 'drain' listeners to that stream, and `on` returns it: destroy it.
 * (Next's own server does the same, in release-compression-stream.js.)
 */
function releaseCompressionStream(response: http.ServerResponse): void {
  const noop = () => {}
  const stream = response.on('drain', noop) as unknown
  response.off('drain', noop)
  if (stream !== response && stream instanceof Duplex) stream.destroy()
}

/** Refused connections, logged at most once a minute with how many there were: a flood must not flood the log too. */
function refusalLogger(): (reason: 'total' | 'address', address: string) => void {
  let refused = 0
  let loggedAt = 0
  return (reason, address) => {
    refused += 1
    const now = Date.now()
    if (now - loggedAt < 60_000) return
    // The logger's line format (server/observability/logger.ts), which main.ts cannot import (server-only).
    const line = { level: 'warn', at: new Date(now).toISOString(), message: 'refused connections beyond the cap', module: 'http', refused, lastReason: reason, lastAddress: address }
    process.stderr.write(`${JSON.stringify(line)}\n`)
    loggedAt = now
    refused = 0
  }
}

async function main(): Promise<void> {
  // On a host of two cores, young-generation collections on the main thread alone: a parallel one waits for V8's
  // helper threads to get a core, 100–270 ms of stalled event loop at load (server/util/scavenge.ts).
  fitScavengesToCores()
  // Before Next loads: the runtime reads it (response checks are off in production) and so does React.
  ;(process.env as Record<string, string>).NODE_ENV ??= 'production'
  // Everything the server writes (tokens, sessions, the audit log, segments) is the owner's alone.
  process.umask(0o077)
  // Also sets HOST and PORT from the flags, before the runtime reads its configuration (the advertised URL's default).
  const { hostname, port } = listenAddress(process.argv.slice(2), process.env)

  const trustProxy = process.env.MIRRORBOARD_TRUST_PROXY === '1'
  const limits = connectionLimitsFrom(process.env, trustProxy)
  const { default: next } = await import('next')
  const server = http.createServer(serverOptions(limits))
  limitConnections(server, limits, refusalLogger())
  const app = next({ dev: false, dir: path.resolve(__dirname, '..'), hostname, port, httpServer: server })
  const handle = app.getRequestHandler()
  await app.prepare()

  const compress = compression({ level: 1, brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 2 } } })
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    // Every log line written while serving the request carries it (route() reads it), and the answer names it.
    const incoming = request.headers['x-request-id']
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    request.headers['x-request-id'] = requestId
    response.setHeader('X-Request-Id', requestId)
    // Before anything reads them: X-Forwarded-* count only from a trusted proxy (MIRRORBOARD_TRUST_PROXY=1).
    // Whether the request came through a proxy at all is taken first, for the demo's one-click sign-in below.
    const proxied = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined
    const clientAddress = applyProxyTrust(request.headers, request.socket.remoteAddress ?? '', trustProxy)
    const nonce = newNonce()
    const tls = isTlsRequest(request.headers['x-forwarded-proto'], request.socket instanceof TLSSocket)
    const headers = securityHeaders(nonce, tls)
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) response.setHeader(name, value)
    // next.config.ts's static policy (for `next start` alone) would replace this one, nonce and all: ours stays.
    const setHeader = response.setHeader.bind(response)
    response.setHeader = (name: string, value: number | string | readonly string[]) =>
      name.toLowerCase() === 'content-security-policy' ? response : setHeader(name, value)
    // Next takes the script nonce from the request's policy; whatever a client sent in these is replaced.
    request.headers['content-security-policy'] = headers['Content-Security-Policy']
    request.headers[NONCE_REQUEST_HEADER] = nonce
    // TRACE echoes requests back (cross-site tracing); Next answers it with a 500 before any route runs.
    if (request.method === 'TRACE' || request.method === 'TRACK') {
      const body = JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not supported` } })
      response.writeHead(405, { Allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
      response.end(body)
      return
    }
    if (hasMalformedPath(request.url)) {
      if (request.url?.startsWith('/api/')) {
        const body = JSON.stringify({ error: { code: 'NOT_FOUND', message: 'the path has a malformed percent-encoding' } })
        response.writeHead(404, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' })
        response.end(body)
        return
      }
      request.url = NOT_FOUND_PAGE_PATH
    }
    // The demo's one-click sign-in trusts the socket's address only (server/http/loopback.ts reads it): a client's
    // own header of that name is overwritten, and a proxied request (X-Forwarded-For, Forwarded) gets none.
    request.headers['x-mirrorboard-peer-address'] = proxied ? '' : (request.socket.remoteAddress ?? '')
    request.headers[CLIENT_ADDRESS_HEADER] = clientAddress
    compress(request as Parameters<typeof compress>[0], response as Parameters<typeof compress>[1], () => {
      void handle(request, response)
    })
    response.once('close', () => {
      if (!response.writableFinished) releaseCompressionStream(response)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, hostname, () => resolve())
  })
  console.log(`mirrorboard listening on http://${hostname}:${port}`)
}

/** The error and its causes in one line (Next wraps what the runtime's start threw: the control cluster unreachable). */
function reasons(error: unknown): string {
  const messages: string[] = []
  for (let at: unknown = error; at instanceof Error && messages.length < 5; at = at.cause) if (!messages.some((message) => message.includes(at instanceof Error ? at.message : ''))) messages.push(at.message)
  return messages.length > 0 ? messages.join(' ← ') : String(error)
}

main().catch((error: unknown) => {
  console.error(`mirrorboard could not start: ${reasons(error)}`)
  console.error(error)
  process.exit(1)
})
