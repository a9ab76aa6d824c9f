// What every hostile test needs: the target (server.ts), and HTTP requests sent from a chosen loopback address,
// so each test is a source of its own for the server's per-address limits and leaves the others' untouched.
import http from 'node:http'
import { inject } from 'vitest'

export const target = inject('hostile')

export interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** A loopback address of 127.0.0.0/8 the request leaves from. */
  from?: string
  timeoutMs?: number
}

export function send(path: string, options: RequestOptions = {}): Promise<Answer> {
  const url = new URL(path, target.url)
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
        localAddress: options.from,
        agent: false,
        timeout: options.timeoutMs ?? 30_000,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }))
        response.on('error', reject)
      },
    )
    request.on('timeout', () => request.destroy(new Error(`${options.method ?? 'GET'} ${path} timed out`)))
    request.on('error', reject)
    request.end(options.body)
  })
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}

/** Signs in with `token` from `from`; the session cookie (name=value) and the answer. */
export async function signIn(token: string, from?: string): Promise<{ cookie: string | null; answer: Answer }> {
  const answer = await send('/api/v1/session', { method: 'POST', body: JSON.stringify({ token }), from })
  const setCookie = answer.headers['set-cookie']?.[0]
  return { cookie: setCookie ? (setCookie.split(';')[0] ?? null) : null, answer }
}

/** Milliseconds `/health` takes to answer, from a source of its own. */
export async function healthLatency(from = '127.0.0.250'): Promise<number> {
  const started = performance.now()
  const answer = await send('/api/v1/health', { from })
  if (answer.status !== 200) throw new Error(`/health answered ${answer.status}`)
  return performance.now() - started
}
