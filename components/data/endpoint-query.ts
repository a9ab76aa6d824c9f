import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import type { z } from 'zod'
import { endpointUrl, type OtherResponseOf } from '@/lib/api/client'
import type { EntryOf, RouteOrEndpoint } from '@/lib/api/routes'
import { callEndpoint, callEndpointWithStatus, type ResponseOf } from './call-endpoint'
import { takeEarlyResponse } from './early-fetch'
import { queryKeys } from './query-keys'

/**
 * Query options generated from the endpoint catalog: `useQuery({ ...endpointQuery(endpoint, { params }) })`
 * reads that endpoint under the key `[operationId, params, query]` (`[…, body]` for a POST read such as a dry
 * run), so the key, the request and the answer's type come from one place: no hook writes a key by hand, the
 * server's prefetch (prefetch.ts) lands under the same key, and the prefixes cache-sync.ts invalidates
 * (`queryKeys.of(endpoint, { mirror })`) match. The key carries the answer's type, so
 * `queryClient.getQueryData(endpointQuery(…).queryKey)` and `setQueryData` are checked against the schema.
 * Callers add what is theirs (polling, staleTime, select, enabled) beside the spread.
 */

type SchemaKeys<S> = S extends z.ZodType ? keyof z.input<S> : never

/** Path parameters by the names of the endpoint's params schema; numbers as the caller holds them. */
export type ParamsOf<E extends RouteOrEndpoint> = { readonly [K in SchemaKeys<EntryOf<E>['params']>]: string | number }
/** Query-string values by the names of the endpoint's query schema; undefined ones are left out of the key and the URL. */
export type QueryOf<E extends RouteOrEndpoint> = { readonly [K in SchemaKeys<EntryOf<E>['query']>]?: string | number | boolean | undefined }
export type BodyOf<E extends RouteOrEndpoint> = EntryOf<E>['body'] extends z.ZodType ? z.input<EntryOf<E>['body']> : never

export interface EndpointRequest<E extends RouteOrEndpoint> {
  readonly params?: ParamsOf<E>
  readonly query?: QueryOf<E>
  /** For reads sent as a POST (a dry run): part of the key, since it is what the answer depends on. */
  readonly body?: BodyOf<E>
}

export interface ReadOptions {
  /**
   * A cheaper check of the success answer that falls back to the schema for anything it does not accept
   * (lib/ui/partition-list-check.ts for a 10,000-row list); not part of the key.
   */
  readonly read?: (body: unknown) => unknown
  /** The page's inline script may have sent this very GET already (early-fetch.ts): its answer is taken, once. */
  readonly early?: boolean
}

/** The key endpointQuery gives a request (for a cache write or an exact invalidation). */
export function endpointKey<E extends RouteOrEndpoint>(endpoint: E, request: EndpointRequest<E> = {}) {
  return endpointQuery(endpoint, request).queryKey
}

export function endpointQuery<E extends RouteOrEndpoint>(endpoint: E, request: EndpointRequest<E> = {}, options: ReadOptions = {}) {
  const params: Readonly<Record<string, string | number>> = request.params ?? {}
  const query: Readonly<Record<string, string | number | boolean | undefined>> = request.query ?? {}
  const key = queryKeys.request(endpoint, params, query)
  const queryFn = ({ signal }: { signal: AbortSignal }): Promise<ResponseOf<E>> => {
    const response = options.early === true ? takeEarlyResponse(endpointUrl(endpoint, params, query)) : undefined
    return callEndpoint(endpoint, { params, query, body: request.body, signal, read: options.read, ...(response === undefined ? {} : { response }) })
  }
  // queryFn again beside the spread: a hook that wraps the read (use-mirror-partitions.ts) calls it as it is.
  return { ...queryOptions({ queryKey: request.body === undefined ? key : ([...key, request.body] as const), queryFn }), queryFn }
}

/**
 * A read whose wanted answer is one of the endpoint's other statuses: a dry run (`dryRun: true`) answers 200
 * with its plan where the real request answers 202 or 201. Any other status is an error, never data.
 */
export function endpointAnswerQuery<E extends RouteOrEndpoint, S extends number>(endpoint: E, status: S, request: EndpointRequest<E>) {
  const params: Readonly<Record<string, string | number>> = request.params ?? {}
  const query: Readonly<Record<string, string | number | boolean | undefined>> = request.query ?? {}
  return queryOptions({
    queryKey: [...queryKeys.request(endpoint, params, query), request.body] as const,
    queryFn: async ({ signal }): Promise<OtherResponseOf<E, S>> => {
      const answer = await callEndpointWithStatus(endpoint, { params, query, body: request.body, signal })
      // The status decides what the answer is (a full catalog entry's body was parsed with that status's schema).
      if (answer.status !== status) throw new Error(`${endpoint.operationId} answered ${answer.status}, not ${status}`)
      return answer.data as OtherResponseOf<E, S>
    },
  })
}

/**
 * A list read a page at a time: each page asks with `pageParam` set to what `nextPage` took from the page
 * before (the audit log's `before`: ids below the last one seen). The key is the first page's request, so
 * the list invalidates by the endpoint's prefix like any other read.
 */
export function endpointPagesQuery<E extends RouteOrEndpoint, P extends SchemaKeys<EntryOf<E>['query']> & string>(
  endpoint: E,
  request: EndpointRequest<E>,
  pages: { readonly pageParam: P; readonly nextPage: (lastPage: ResponseOf<E>) => number | undefined },
) {
  const params: Readonly<Record<string, string | number>> = request.params ?? {}
  const query: Readonly<Record<string, string | number | boolean | undefined>> = request.query ?? {}
  return infiniteQueryOptions({
    queryKey: queryKeys.request(endpoint, params, query),
    queryFn: ({ signal, pageParam }): Promise<ResponseOf<E>> => callEndpoint(endpoint, { params, query: { ...query, [pages.pageParam]: pageParam }, signal }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (lastPage) => pages.nextPage(lastPage),
  })
}
