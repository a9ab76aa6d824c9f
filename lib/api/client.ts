import type { Endpoint } from './endpoints'
import { ApiError, ErrorBody } from './errors'

/**
 * Pure helpers for code that calls the API (UI hooks, scripts): the URL of a catalog entry and the ApiError
 * of an error response, so callers never assemble paths by hand or guess at error shapes.
 */

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
  const parsed = ErrorBody.safeParse(body)
  if (parsed.success) {
    const { code, message, details } = parsed.data.error
    return new ApiError(code, message, details === undefined ? undefined : { details })
  }
  return new ApiError(status === 401 ? 'UNAUTHENTICATED' : 'INTERNAL', `HTTP ${status} without an API error body`, { details: { status } })
}
