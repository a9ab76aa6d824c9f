import type { Route } from '@/lib/api/routes'

/**
 * Every query key of the app, in one place. A key is `[operationId, params, query]` of the catalog entry it
 * reads, so the key and the request cannot disagree, and TanStack Query's partial matching invalidates by
 * prefix: `queryKeys.of(listMirrorPartitions, { mirror })` matches that mirror's lists whatever their filters.
 */
type Params = Readonly<Record<string, string | number>>
type Query = Readonly<Record<string, string | number | boolean | undefined>>

export type QueryKey = readonly [string, Params, Query] | readonly [string, Params] | readonly [string]

export const queryKeys = {
  /** The exact key of one request. */
  request(endpoint: Pick<Route, 'operationId'>, params: Params = {}, query: Query = {}): readonly [string, Params, Query] {
    return [endpoint.operationId, params, dropUndefined(query)]
  },
  /**
   * A request its owner alone refreshes, outside the endpoint's prefix so no event refetches it: the partition
   * page's record windows, whose query carries the snapshot's log extent and is read again only when that moves.
   */
  pinned(endpoint: Pick<Route, 'operationId'>, params: Params = {}, query: Query = {}): readonly [string, Params, Query] {
    return [`${endpoint.operationId}:pinned`, params, dropUndefined(query)]
  },
  /** A prefix matching every request of an endpoint, or of one resource of it (`{ mirror }`). */
  of(endpoint: Pick<Route, 'operationId'>, params?: Params): QueryKey {
    return params === undefined ? [endpoint.operationId] : [endpoint.operationId, params]
  },
}

function dropUndefined(query: Query): Query {
  const entries = Object.entries(query).filter(([, value]) => value !== undefined)
  return entries.length === Object.keys(query).length ? query : Object.fromEntries(entries)
}
