import { QueryClient, dehydrate, type DehydratedState } from '@tanstack/react-query'
import type { z } from 'zod'
import { SERVED_ENDPOINTS } from '@/lib/api/endpoints'
import type { RouteOrEndpoint } from '@/lib/api/routes'
import { endpointKey } from './endpoint-query'

/**
 * First data for a page, rendered on the server: the page (a server component in app/) computes each answer
 * with the same server functions the route handlers call, and this turns them into a dehydrated cache for
 * <HydrationBoundary>, under the very keys the client hooks use (endpointKey, endpoint-query.ts). Each value goes through the endpoint's
 * response schema and a JSON round trip, so the client sees exactly what the API would have sent.
 */
export interface Prefetched {
  /** A route (routes.ts) or a catalog entry: the schema is the catalog's either way (this runs on the server). */
  readonly endpoint: RouteOrEndpoint
  readonly params?: Readonly<Record<string, string | number>>
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly value: unknown
}

export function dehydrateAnswers(answers: readonly Prefetched[]): DehydratedState {
  const queryClient = new QueryClient()
  for (const { endpoint, params, query, value } of answers) {
    const schema = SCHEMAS.get(endpoint.operationId) as z.ZodType
    const parsed = schema.safeParse(JSON.parse(JSON.stringify(value)))
    // A value the schema refuses is a bug in the page's server code; the page still renders, and the client
    // asks the API itself (whose answers are checked the same way), rather than the whole page failing.
    if (!parsed.success) {
      console.error(`prefetch: ${endpoint.operationId} answer does not match its schema`, parsed.error.issues.slice(0, 3))
      continue
    }
    queryClient.setQueryData<unknown>(endpointKey(endpoint, { params, query }), parsed.data)
  }
  return dehydrate(queryClient)
}

/** Each served endpoint's response schema by operationId. */
const SCHEMAS = new Map(SERVED_ENDPOINTS.map((entry) => [entry.operationId, entry.response]))
