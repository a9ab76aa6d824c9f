import type { z } from 'zod'
import type { ApiErrorCode } from '../errors'

/**
 * What an entry of the endpoint catalog is (lib/api/endpoints.ts): method, path, who may call it, what it reads
 * and returns. Route handlers are built from entries (`server/http/route.ts`), the OpenAPI document is
 * generated from them, and the browser's data layer calls them.
 */

export type AccessRole = 'public' | 'viewer' | 'operator' | 'admin'
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** A 204 response. */
export interface EmptyContent {
  readonly kind: 'empty'
}
/** A non-JSON response (event stream, Prometheus text). */
export interface TextContent {
  readonly kind: 'text'
  readonly contentType: string
}

export const EMPTY: EmptyContent = { kind: 'empty' }

export interface Endpoint {
  readonly operationId: string
  readonly method: HttpMethod
  /** OpenAPI path template, e.g. `/api/v1/clusters/{cluster}`. */
  readonly path: string
  readonly role: AccessRole
  readonly summary: string
  /** Audit action; set on every mutation, which is then logged whatever its outcome. */
  readonly audit?: string
  readonly params?: z.ZodType<Record<string, unknown>, Record<string, string>>
  readonly query?: z.ZodType<Record<string, unknown>, Record<string, string | undefined>>
  readonly body?: z.ZodType
  /** The success status and its content. */
  readonly status: number
  readonly response: z.ZodType | EmptyContent | TextContent
  /** Another representation of the same success, chosen by a query parameter (`?format=md`): its content type. */
  readonly alternateContentType?: string
  /** Further success statuses a handler may choose (dry runs vs real runs). */
  readonly otherResponses?: Readonly<Record<number, z.ZodType>>
  /** Error codes beyond those every endpoint of its kind may return (validation, auth, not found). */
  readonly errors?: readonly ApiErrorCode[]
  /** The success response carries the mirror's state version as its `ETag` header. */
  readonly etag?: boolean
  /** Accepts `If-Match` with a mirror state version; 412 PRECONDITION_FAILED when the mirror moved since. */
  readonly ifMatch?: boolean
}

/** Checks an entry against `Endpoint` while keeping its literal types (the routes and the data layer read them). */
export function endpoint<const E extends Endpoint>(definition: E): E {
  return definition
}

/** The prefix of every versioned path. */
export const V1 = '/api/v1'

export function isMutation(endpoint: Pick<Endpoint, 'method'>): boolean {
  return endpoint.method !== 'GET'
}
