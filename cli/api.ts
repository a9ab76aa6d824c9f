import { z } from 'zod'
import { endpointUrl, parseAnswer, toApiError, type ResponseOf } from '@/lib/api/client'
import type { Endpoint } from '@/lib/api/endpoints'
import { RefusedError, UnreachableError, UsageError } from './exit'

/**
 * The command line's one way to the server, a thin layer over the endpoint catalog (lib/api/endpoints.ts) as
 * the browser's components/data/call-endpoint.ts is: the URL comes from the catalog entry, the path
 * parameters and the body are checked with the entry's own schemas before anything is sent (a bad value is a
 * usage error, exit 2, and the server never hears of it), and the answer is parsed with the entry's response
 * schema. An API error becomes a RefusedError with the server's code and message; no answer at all an
 * UnreachableError. The token travels in the Authorization header only and is never part of a message.
 */

export interface Connection {
  /** The server's base URL, e.g. `http://127.0.0.1:3000` (no path below it). */
  readonly server: string
  readonly token: string | null
  readonly timeoutMs: number
  /** Aborts requests in flight (Ctrl-C). */
  readonly signal?: AbortSignal
  readonly fetch?: typeof fetch
}

export interface Request {
  readonly params?: Readonly<Record<string, string | number>>
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export interface Answer<T> {
  readonly status: number
  readonly data: T
  readonly headers: Headers
}

export class Api {
  constructor(readonly connection: Connection) {}

  async call<E extends Endpoint>(endpoint: E, request: Request = {}): Promise<ResponseOf<E>> {
    return (await this.send(endpoint, request)).data as ResponseOf<E>
  }

  /** The answer with its status (a dry run's 200, a real run's 202) and headers (ETag); data parsed for that status. */
  async send(endpoint: Endpoint, request: Request = {}): Promise<Answer<unknown>> {
    checkRequest(endpoint, request)
    const response = await this.fetch(endpoint.method, endpointUrl(endpoint, request.params, request.query), request)
    const text = await response.text()
    const body = parseJson(text, response)
    if (!response.ok) throw refusal(response.status, body)
    try {
      return { status: response.status, data: parseAnswer(endpoint, response.status, body), headers: response.headers }
    } catch (error) {
      throw new RefusedError('INTERNAL', `the server's answer to ${endpoint.operationId} is not what this command line expects (a different version?): ${describeZod(error)}`)
    }
  }

  /** A text answer (a Markdown report), the body as it is. */
  async text(endpoint: Endpoint, request: Request = {}): Promise<string> {
    checkRequest(endpoint, request)
    const response = await this.fetch(endpoint.method, endpointUrl(endpoint, request.params, request.query), request)
    const text = await response.text()
    if (!response.ok) throw refusal(response.status, parseJson(text, response))
    return text
  }

  /** An open streaming answer (the event stream); the caller reads and cancels its body. */
  async stream(endpoint: Endpoint, request: Request & { signal: AbortSignal }): Promise<Response> {
    checkRequest(endpoint, request)
    const response = await this.fetch(endpoint.method, endpointUrl(endpoint, request.params, request.query), request, request.signal, false)
    if (!response.ok) throw refusal(response.status, parseJson(await response.text(), response))
    return response
  }

  private async fetch(method: string, path: string, request: Request, signal?: AbortSignal, timed = true): Promise<Response> {
    const { server, token, timeoutMs } = this.connection
    const headers: Record<string, string> = { accept: 'application/json, text/markdown;q=0.9, text/event-stream;q=0.8', ...request.headers }
    if (token !== null) headers.authorization = `Bearer ${token}`
    if (request.body !== undefined) headers['content-type'] = 'application/json'
    const signals = [signal ?? this.connection.signal, timed ? AbortSignal.timeout(timeoutMs) : undefined].filter((entry): entry is AbortSignal => entry !== undefined)
    const url = `${server}${path}`
    try {
      return await (this.connection.fetch ?? fetch)(url, {
        method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: signals.length === 0 ? undefined : AbortSignal.any(signals),
        redirect: 'manual',
      })
    } catch (error) {
      if (this.connection.signal?.aborted === true || signal?.aborted === true) throw error
      throw new UnreachableError(`cannot reach ${server}: ${networkReason(error, timeoutMs)}`)
    }
  }
}

/** The path parameters, query and body as the catalog entry would parse them on the server. */
function checkRequest(endpoint: Endpoint, request: Request): void {
  check(endpoint.params, request.params === undefined ? undefined : asStrings(request.params))
  check(endpoint.query, request.query === undefined ? undefined : asStrings(request.query))
  check(endpoint.body, request.body)
}

function check(schema: z.ZodType | undefined, value: unknown): void {
  if (schema === undefined || value === undefined) return
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw new UsageError(describeZod(parsed.error))
}

function asStrings(values: Readonly<Record<string, string | number | boolean | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)]])))
}

function parseJson(text: string, response: Response): unknown {
  if (text === '') return undefined
  const type = response.headers.get('content-type') ?? ''
  if (!type.includes('json')) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function refusal(status: number, body: unknown): RefusedError {
  const error = toApiError(status, body)
  return new RefusedError(error.code, error.message, error.details)
}

/** `topics.0: must be 1 to 249 characters …` for each issue, the path as the request spells it. */
export function describeZod(error: unknown): string {
  if (!(error instanceof z.ZodError)) return error instanceof Error ? error.message : String(error)
  return error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`)).join('; ')
}

function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${Math.round(timeoutMs / 1000)} s`
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null
  const code = cause !== null && 'code' in cause ? String(cause.code) : null
  if (code !== null) return code === 'ECONNREFUSED' ? 'connection refused' : `${code}${cause?.message ? ` (${cause.message})` : ''}`
  return cause?.message ?? (error instanceof Error ? error.message : String(error))
}
