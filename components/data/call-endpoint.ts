import { endpointUrl, parseAnswer, toApiError, type ResponseOf } from '@/lib/api/client'
import type { RouteOrEndpoint } from '@/lib/api/routes'
import { ApiError } from '@/lib/api/errors'

/**
 * The one way the browser calls the API: the URL comes from the endpoint catalog (its browser table,
 * lib/api/routes.ts), the body is checked against nothing (the server validates it and answers with a coded
 * error), and the answer has the type of the catalog's response schema, so a component gets exactly the type
 * the server promised or an ApiError with the server's code and message. A full catalog entry (tests, the
 * command line) has its answer parsed with its schema; a route has none to load (routes.ts says why), and a
 * caller that wants a check passes `read`. A request that never reached the server becomes an
 * `INTERNAL` ApiError whose message says so.
 */

export type { ResponseOf }

export interface CallOptions {
  readonly params?: Readonly<Record<string, string | number>>
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly body?: unknown
  readonly signal?: AbortSignal
  readonly headers?: Readonly<Record<string, string>>
  /** The answer of this very request, already sent (early-fetch.ts): read instead of fetching again. */
  readonly response?: Promise<Response>
  /**
   * A cheaper check of the success answer that falls back to the endpoint's schema for anything it does not
   * accept as it is (lib/ui/partition-list-check.ts, for a 10,000-row list), maybe a promise (the schema's
   * module loaded when needed); the schema otherwise.
   */
  readonly read?: (body: unknown) => unknown
}

export interface CallResult<T> {
  readonly status: number
  readonly data: T
  readonly headers: Headers
}

export async function callEndpoint<E extends RouteOrEndpoint>(endpoint: E, options: CallOptions = {}): Promise<ResponseOf<E>> {
  return (await callEndpointWithStatus(endpoint, options)).data
}

/** Like callEndpoint, with the status (a dry run's 200 vs a real run's 202) and headers (ETag). */
export async function callEndpointWithStatus<E extends RouteOrEndpoint>(endpoint: E, options: CallOptions = {}): Promise<CallResult<ResponseOf<E>>> {
  const url = endpointUrl(endpoint, options.params, options.query)
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = options.response !== undefined ? await options.response : await fetch(url, {
      method: endpoint.method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      cache: 'no-store',
      credentials: 'same-origin',
    })
  } catch (error) {
    if (options.signal?.aborted) throw error
    throw new ApiError('INTERNAL', `the server could not be reached (${error instanceof Error ? error.message : String(error)})`, { cause: error })
  }
  const text = await response.text()
  let body: unknown = undefined
  if (text !== '') {
    try {
      body = JSON.parse(text)
    } catch {
      throw toApiError(response.status, undefined)
    }
  }
  if (!response.ok) throw toApiError(response.status, body)
  const data = options.read !== undefined && response.status === endpoint.status ? await options.read(body) : parseAnswer(endpoint, response.status, body)
  return { status: response.status, data: data as ResponseOf<E>, headers: response.headers }
}
