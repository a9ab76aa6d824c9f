import type { z } from 'zod'
import type { Endpoint } from './endpoints'
import type { EntryOf, RouteOrEndpoint } from './routes'
import { ApiError, isErrorBody } from './errors'

/**
 * Pure helpers for code that calls the API (the browser's data layer, the command line, scripts): the URL of a
 * catalog entry, the ApiError of an error response and the parsed success answer, so callers never assemble
 * paths by hand, guess at error shapes or trust an answer the catalog's schema did not check.
 */

/** The success answer of an endpoint at its main status, as its schema parses it (undefined for 204 and text). */
export type ResponseOf<R extends RouteOrEndpoint> = EntryOf<R>['response'] extends z.ZodType ? z.output<EntryOf<R>['response']> : undefined

/** The answer of an endpoint at another success status it declares (a dry run's 200 beside a real run's 202). */
export type OtherResponseOf<R extends RouteOrEndpoint, S extends number> = EntryOf<R>['otherResponses'] extends Readonly<Record<S, infer Schema extends z.ZodType>> ? z.output<Schema> : never

/** `/api/v1/clusters/{cluster}/topics` + `{ cluster: 'east' }` → `/api/v1/clusters/east/topics`. */
export function endpointUrl(
  endpoint: Pick<Endpoint, 'path'>,
  params: Readonly<Record<string, string | number>> = {},
  query: Readonly<Record<string, string | number | boolean | undefined>> = {},
): string {
  const path = endpoint.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) throw new ApiError('VALIDATION_FAILED', `missing path parameter ${name} for ${endpoint.path}`)
    return encodeURIComponent(String(value))
  })
  const search = Object.entries(query)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&')
  return search === '' ? path : `${path}?${search}`
}

/** The error an HTTP error response stands for; a body that is not the API's error shape becomes INTERNAL. */
export function toApiError(status: number, body: unknown): ApiError {
  if (isErrorBody(body)) {
    const { code, message, details } = body.error
    return new ApiError(code, message, details === undefined ? undefined : { details: { ...details } })
  }
  return new ApiError(status === 401 ? 'UNAUTHENTICATED' : 'INTERNAL', `HTTP ${status} without an API error body`, { details: { status } })
}

/**
 * A success answer checked with the catalog's schema for its status (the main one or one of `otherResponses`);
 * a 204 or text answer, a status the entry does not declare, or a route without schemas (routes.ts, the
 * browser's) is passed as it is. Throws the schema's
 * ZodError when the answer is not what the catalog promises.
 */
export function parseAnswer(endpoint: Pick<Endpoint, 'status'> & Partial<Pick<Endpoint, 'response' | 'otherResponses'>>, status: number, body: unknown): unknown {
  const schema = status === endpoint.status ? endpoint.response : endpoint.otherResponses?.[status]
  return schema !== undefined && isZod(schema) ? schema.parse(body) : body
}

function isZod(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && 'safeParse' in value
}
