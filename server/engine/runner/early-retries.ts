import 'server-only'
import type { FailureCode } from '@/lib/mirror/failure-code'
import type { EngineClock, EngineLog, PartitionDispatch } from '../engine-context'
import type { EngineMirror } from '../state/engine-mirror'
import type { PartitionRuntime } from '../types'

/**
 * A FAILED partition waits out its backoff (full jitter up to `mirror.failed.retry.max.backoff.ms`, five minutes
 * by default), whatever happens meanwhile: after a link was down for two minutes, the partitions' next retries lay
 * anywhere in the next three, and a healed mirror stayed FAILED, partition by partition, long after its source was
 * back. When a fetch is answered and applied for a partition that failed because the source (or the destination) did
 * not answer, the mirror's other partitions that failed for that same reason wait on a cause that is gone: their
 * retries come forward, spread over this window so a cluster just back is not met by every partition at once. A
 * retry already due sooner is kept; a partition FAILED for a reason of its own (a diverged log, a fetch error)
 * keeps its backoff.
 */
export const EARLY_RETRY_SPREAD_MS = 2_000

/** The failures of a whole cluster's answer, not of one partition: one partition's recovery shows the cluster back. */
const CLUSTER_WIDE: ReadonlySet<FailureCode> = new Set(['SOURCE_UNREACHABLE', 'DESTINATION_UNREACHABLE'])

/**
 * When each mirror last brought its retries forward, per cause. After a scan every sibling's retry lies within the
 * spread window, so the partitions recovering during it would scan all the mirror's partitions to move nothing:
 * 2,000 partitions coming back meant 2,000 scans of 2,000. A partition failing anew in the window is reached by the
 * first recovery after it.
 */
const lastScanAt = new WeakMap<EngineMirror, Map<FailureCode, number>>()

/**
 * Called once `recovered`, FAILED with `failedOn`, has had a fetch answered and applied: returns how many retries
 * came forward.
 */
export function retrySiblingsSoon(ctx: EngineClock & EngineLog & PartitionDispatch, mirror: EngineMirror, recovered: PartitionRuntime, failedOn: FailureCode | null): number {
  if (failedOn === null || !CLUSTER_WIDE.has(failedOn)) return 0
  const now = ctx.now()
  let scans = lastScanAt.get(mirror)
  if (scans === undefined) lastScanAt.set(mirror, (scans = new Map()))
  const last = scans.get(failedOn)
  if (last !== undefined && now >= last && now - last < EARLY_RETRY_SPREAD_MS) return 0
  scans.set(failedOn, now)
  let count = 0
  for (const runtime of mirror.partitions.values()) {
    if (runtime === recovered || runtime.value.state !== 'FAILED' || runtime.failureCode !== failedOn) continue
    if (runtime.retryAt === null || runtime.retryAt <= now + EARLY_RETRY_SPREAD_MS) continue
    if (ctx.runner.retryEarly(runtime, now + Math.floor(ctx.random() * EARLY_RETRY_SPREAD_MS))) count++
  }
  if (count > 0) {
    const cluster = failedOn === 'SOURCE_UNREACHABLE' ? 'source' : 'destination'
    ctx.log(`the ${cluster} answers again; partitions that failed on it retry now`, { mirror: mirror.definition.name, answered: `${recovered.topic}-${recovered.partition}`, partitions: count })
  }
  return count
}
