import type { QueryClient } from '@tanstack/react-query'
import { alertEndpoints, drillEndpoints, verificationEndpoints } from '@/lib/api/routes'
import { clusterEndpoints, mirrorEndpoints, systemEndpoints } from '@/lib/api/routes'
import type { ClusterEvent } from '@/lib/api/events'
import { applyOperationEvent } from '@/lib/ui/operation-event'
import { endpointKey } from './endpoint-query'
import type { EventStreamClient } from './event-stream-client'
import { queryKeys, type QueryKey } from './query-keys'

/**
 * How live events reach cached queries: an operation event is written into the cache (a whole operation, or
 * the partitions a progress event says changed, patched in: lib/ui/operation-event.ts); the others say what changed and invalidate the queries that show it, at most once per
 * `INVALIDATE_EVERY_MS` per key, so a burst of a thousand transitions costs one refetch, not a thousand.
 * Features with their own stores (the 10,000-row partition table) subscribe to the stream themselves.
 *
 * Each rule listens only while a query it updates is observed (on screen): the stream then stops carrying
 * types no one shows (event-stream-client.ts). A query that comes back on screen is refetched when older than
 * its staleTime, and the reopened stream replays the events missed meanwhile.
 */

const INVALIDATE_EVERY_MS = 1_000
/**
 * Lag alone refreshes the mirror list at most this often. Every mirror samples its lag each second, so the list
 * was read again and the overview re-rendered (topology labels, counts, cadence, incidents) about every second:
 * periodic long tasks on a phone's CPU that kept Lighthouse's page from ever going quiet. A state change (a
 * `partition` event) still refreshes the list within INVALIDATE_EVERY_MS.
 */
const LAG_LIST_EVERY_MS = 5_000

/**
 * The operation event's schema (lib/api/operations.ts, which holds the failover plan's and the mirror's
 * schemas), loaded with the first operation event rather than with every page: evaluating the API's schemas
 * was most of the blocking time of a page's first seconds on a phone (lib/api/routes.ts). The events wait for
 * it in the order they came.
 */
let operationSchema: Promise<typeof import('@/lib/api/operations').OperationEvent> | undefined
function loadOperationSchema() {
  operationSchema ??= import('@/lib/api/operations').then((module) => module.OperationEvent)
  return operationSchema
}

/** A cluster event names its cluster and maybe a topic; that is all this reads of it. */
function clusterEventTarget(data: unknown): Pick<ClusterEvent, 'cluster' | 'topic'> | undefined {
  if (typeof data !== 'object' || data === null) return undefined
  const { cluster, topic } = data as Record<string, unknown>
  if (typeof cluster !== 'string' || (topic !== undefined && typeof topic !== 'string')) return undefined
  return { cluster, topic }
}

interface Rule {
  /** Prefixes of the queries the rule writes or invalidates: it listens while one of them is observed. */
  readonly updates: readonly QueryKey[]
  readonly listen: () => () => void
}

export function syncCacheWithEvents(queryClient: QueryClient, stream: EventStreamClient): () => void {
  const pending = new Map<string, QueryKey>()
  let timer: ReturnType<typeof setTimeout> | undefined
  const invalidate = (...keys: QueryKey[]) => {
    for (const key of keys) pending.set(JSON.stringify(key), key)
    if (timer !== undefined) return
    timer = setTimeout(() => {
      timer = undefined
      const keysNow = [...pending.values()]
      pending.clear()
      for (const queryKey of keysNow) void queryClient.invalidateQueries({ queryKey })
    }, INVALIDATE_EVERY_MS)
  }

  const rules: Rule[] = [
    {
      updates: [
        queryKeys.of(mirrorEndpoints.listMirrors),
        queryKeys.of(mirrorEndpoints.getMirror),
        queryKeys.of(mirrorEndpoints.partitionHistory),
        queryKeys.of(mirrorEndpoints.mirrorTimeline),
      ],
      listen: () =>
        stream.subscribe('partition', (data) => {
          const event = data as { mirror?: unknown; topic?: unknown; partition?: unknown }
          if (typeof event.mirror !== 'string') return
          const mirror = event.mirror
          invalidate(
            queryKeys.of(mirrorEndpoints.listMirrors),
            queryKeys.of(mirrorEndpoints.getMirror, { mirror }),
            queryKeys.of(mirrorEndpoints.partitionHistory, { mirror }),
            // The incident timeline follows the transitions as they happen, not its own polling.
            queryKeys.of(mirrorEndpoints.mirrorTimeline, { mirror }),
          )
        }),
    },
    {
      updates: [queryKeys.of(mirrorEndpoints.listMirrors)],
      // The list only needs to know that lag moved, not the megabyte of per-partition lag the event carries.
      listen: () => {
        let lagTimer: ReturnType<typeof setTimeout> | undefined
        const stop = stream.subscribeArrival('lag', () => {
          lagTimer ??= setTimeout(() => {
            lagTimer = undefined
            invalidate(queryKeys.of(mirrorEndpoints.listMirrors))
          }, LAG_LIST_EVERY_MS - INVALIDATE_EVERY_MS)
        })
        return () => {
          clearTimeout(lagTimer)
          stop()
        }
      },
    },
    {
      updates: [queryKeys.of(mirrorEndpoints.getOperation), queryKeys.of(mirrorEndpoints.listOperations)],
      listen: () =>
        stream.subscribe('operation', (data) => {
          void loadOperationSchema().then((OperationEvent) => {
            // A progress event of a running operation holds only the partitions that changed: this parses
            // those, not the whole 10,000-partition list, four times a second.
            const parsed = OperationEvent.safeParse(data)
            if (!parsed.success) return
            const key = endpointKey(mirrorEndpoints.getOperation, { params: { id: parsed.data.id } })
            const next = applyOperationEvent(queryClient.getQueryData(key), parsed.data)
            // Not held (or not matching): the whole operation is read again, without cancelling a read under way.
            if (next === undefined) void queryClient.invalidateQueries({ queryKey: key, exact: true }, { cancelRefetch: false })
            else queryClient.setQueryData(key, next)
            invalidate(queryKeys.of(mirrorEndpoints.listOperations))
          })
        }),
    },
    {
      updates: [
        queryKeys.of(clusterEndpoints.listClusters),
        queryKeys.of(clusterEndpoints.getCluster),
        queryKeys.of(clusterEndpoints.listTopics),
        queryKeys.of(clusterEndpoints.listGroups),
        queryKeys.of(clusterEndpoints.listPartitions),
        queryKeys.of(clusterEndpoints.readRecords),
      ],
      listen: () =>
        stream.subscribe('cluster', (data) => {
          const target = clusterEventTarget(data)
          if (target === undefined) return
          const { cluster, topic } = target
          invalidate(
            queryKeys.of(clusterEndpoints.listClusters),
            queryKeys.of(clusterEndpoints.getCluster, { cluster }),
            queryKeys.of(clusterEndpoints.listTopics, { cluster }),
            queryKeys.of(clusterEndpoints.listGroups, { cluster }),
            topic === undefined ? queryKeys.of(clusterEndpoints.listPartitions, { cluster }) : queryKeys.of(clusterEndpoints.listPartitions, { cluster, topic }),
            topic === undefined ? queryKeys.of(clusterEndpoints.readRecords, { cluster }) : queryKeys.of(clusterEndpoints.readRecords, { cluster, topic }),
          )
        }),
    },
    { updates: [queryKeys.of(systemEndpoints.audit)], listen: () => stream.subscribe('audit', () => invalidate(queryKeys.of(systemEndpoints.audit))) },
    {
      // A drill's phases and outcome, and the cadence the mirror summary shows.
      updates: [queryKeys.of(drillEndpoints.listMirrorDrills), queryKeys.of(drillEndpoints.getDrill)],
      listen: () =>
        stream.subscribe('drill', (data) => {
          const drill = data as { id?: unknown; mirror?: unknown }
          if (typeof drill.id !== 'string' || typeof drill.mirror !== 'string') return
          invalidate(queryKeys.of(drillEndpoints.getDrill, { id: drill.id }), queryKeys.of(drillEndpoints.listMirrorDrills, { mirror: drill.mirror }), queryKeys.of(mirrorEndpoints.getMirror, { mirror: drill.mirror }))
        }),
    },
    {
      updates: [queryKeys.of(verificationEndpoints.listMirrorVerifications), queryKeys.of(verificationEndpoints.getVerification)],
      listen: () =>
        stream.subscribe('verification', (data) => {
          const verification = data as { id?: unknown; mirror?: unknown }
          if (typeof verification.id !== 'string' || typeof verification.mirror !== 'string') return
          invalidate(queryKeys.of(verificationEndpoints.getVerification, { id: verification.id }), queryKeys.of(verificationEndpoints.listMirrorVerifications, { mirror: verification.mirror }))
        }),
    },
    {
      // The header's bell observes the firing alerts on every page; a change is delivered to receivers too.
      updates: [queryKeys.of(alertEndpoints.listAlerts), queryKeys.of(alertEndpoints.listReceivers)],
      listen: () => stream.subscribe('alert', () => invalidate(queryKeys.of(alertEndpoints.listAlerts), queryKeys.of(alertEndpoints.listReceivers))),
    },
  ]

  const queryCache = queryClient.getQueryCache()
  const observed = (prefix: QueryKey) => queryCache.findAll({ queryKey: prefix }).some((query) => query.getObserversCount() > 0)
  const listening = new Map<Rule, () => void>()
  const followObservers = () => {
    for (const rule of rules) {
      const wanted = rule.updates.some(observed)
      const stop = listening.get(rule)
      if (wanted && stop === undefined) listening.set(rule, rule.listen())
      else if (!wanted && stop !== undefined) {
        stop()
        listening.delete(rule)
      }
    }
  }
  // Observers change many at a time while a page mounts: the rules are looked at once per burst.
  let followScheduled = false
  let stopped = false
  const stopFollowing = queryCache.subscribe((event) => {
    if (followScheduled || (event.type !== 'observerAdded' && event.type !== 'observerRemoved' && event.type !== 'removed')) return
    followScheduled = true
    queueMicrotask(() => {
      followScheduled = false
      if (!stopped) followObservers()
    })
  })
  followObservers()
  // The server no longer holds what this tab missed: everything may be stale.
  const stopResync = stream.subscribe('resync', () => void queryClient.invalidateQueries())
  return () => {
    stopped = true
    clearTimeout(timer)
    stopFollowing()
    stopResync()
    for (const stop of listening.values()) stop()
    listening.clear()
  }
}
