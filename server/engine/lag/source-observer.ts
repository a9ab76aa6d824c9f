import 'server-only'
import { withTimeout } from '@/server/util/with-timeout'
import type { ClusterAccess, EngineClock, EngineLog } from '../engine-context'
import { errorMessage } from '../failure-classification'
import type { EngineMirror } from '../state/engine-mirror'
import { changePartition } from '../state/partition-changes'
import { lagOf } from './lag-sampler'

/** How often a silent source is read by Mirrorboard itself, per mirror. */
export const SOURCE_OBSERVE_INTERVAL_MS = 5_000
/** A source that does not answer the dashboard either leaves the last fetch's figures standing. */
const SOURCE_OBSERVE_TIMEOUT_MS = 3_000

const observations = new WeakMap<EngineMirror, { lastAt: number; inFlight: boolean; failing: boolean }>()

/**
 * While a mirror cannot fetch from its source (its link cut, the mirror paused, fetches stalling) its lag and
 * records at risk are lower bounds from the last fetch, and they stop counting what the source takes since.
 * The operator's own view of the source often still answers (out-of-band monitoring: server/cluster/links.ts),
 * and the partition page and the failover plan read it: so that the mirror page, the partition page and the
 * wizard give one answer to "what would I lose", the engine reads the silent source's high watermarks through
 * that view every few seconds and keeps them as the partitions' source high watermark, with the time read
 * (`sourceObservedAt`). The figures stay lower bounds (the mirror still does not fetch), now as of seconds ago.
 *
 * Started from the engine's tick and not awaited: a source that does not answer must not hold the tick.
 */
export function observeSilentSources(ctx: ClusterAccess & EngineClock & EngineLog, mirror: EngineMirror): void {
  const now = ctx.now()
  const seen = observations.get(mirror) ?? { lastAt: 0, inFlight: false, failing: false }
  observations.set(mirror, seen)
  if (seen.inFlight || now - seen.lastAt < SOURCE_OBSERVE_INTERVAL_MS) return
  const topics = new Set<string>()
  for (const runtime of mirror.partitions.values()) if (!topics.has(runtime.topic) && isSilent(runtime, now)) topics.add(runtime.topic)
  if (topics.size === 0) return
  const source = ctx.clusters.observer(mirror.definition.sourceCluster)
  if (source === undefined) return
  seen.lastAt = now
  seen.inFlight = true
  const call = source.describeTopics([...topics])
  // The next reading waits for this call to end, not for its timeout: a source that hangs gets one call at a time.
  void call
    .catch(() => undefined)
    .finally(() => {
      seen.inFlight = false
    })
  void withTimeout(call, SOURCE_OBSERVE_TIMEOUT_MS)
    .then((described) => {
      seen.failing = false
      const at = ctx.now()
      for (const topic of described) {
        for (const partition of topic.partitions) {
          const runtime = mirror.partitions.get({ topic: topic.name, partition: partition.partition })
          // Only where the mirror itself has not read the source since; never lowering what a fetch saw.
          if (runtime === undefined || !isSilent(runtime, at) || (runtime.lastFetchAt ?? 0) >= at) continue
          if (partition.highWatermark < (runtime.sourceHighWatermark ?? 0)) continue
          changePartition(runtime, { sourceHighWatermark: partition.highWatermark, sourceObservedAt: at })
        }
      }
    })
    .catch((error: unknown) => {
      // Once per outage, not every few seconds of it.
      if (!seen.failing) ctx.log('a silent source could not be read by Mirrorboard either', { mirror: mirror.definition.name, error: errorMessage(error) })
      seen.failing = true
    })
}

/** Its figures are lower bounds from a fetch made once (none at all: nothing to bound). */
function isSilent(runtime: Parameters<typeof lagOf>[0], now: number): boolean {
  return lagOf(runtime, now).basis === 'lowerBound'
}
