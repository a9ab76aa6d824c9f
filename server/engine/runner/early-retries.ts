import 'server-only'
import type { EngineClock, EngineLog, PartitionDispatch } from '../engine-context'
import type { EngineMirror } from '../state/engine-mirror'
import type { PartitionRuntime } from '../types'

/**
 * A FAILED partition waits out its backoff (full jitter up to `mirror.failed.retry.max.backoff.ms`, five minutes
 * by default), whatever happens meanwhile: after a link was down for two minutes, the partitions' next retries lay
 * anywhere in the next three, and a healed mirror stayed FAILED, partition by partition, long after its source was
 * back. When the source answers a partition that failed because it did not (SOURCE_UNREACHABLE), the mirror's other
 * partitions that failed for that reason wait on a cause that is gone: their retries come forward, spread over
 * this window so a source just back is not met by every partition at once. A retry already due sooner is kept.
 */
export const EARLY_RETRY_SPREAD_MS = 2_000

/** Called once `recovered` has had a fetch answered after failing: returns how many retries came forward. */
export function retrySourceUnreachableSoon(ctx: EngineClock & EngineLog & PartitionDispatch, mirror: EngineMirror, recovered: PartitionRuntime): number {
  const now = ctx.now()
  let count = 0
  for (const runtime of mirror.partitions.values()) {
    if (runtime === recovered || runtime.value.state !== 'FAILED' || runtime.failureCode !== 'SOURCE_UNREACHABLE') continue
    if (runtime.retryAt === null || runtime.retryAt <= now + EARLY_RETRY_SPREAD_MS) continue
    if (ctx.runner.retryEarly(runtime, now + Math.floor(ctx.random() * EARLY_RETRY_SPREAD_MS))) count++
  }
  if (count > 0) {
    ctx.log('the source answers again; partitions that failed on it retry now', { mirror: mirror.definition.name, answered: `${recovered.topic}-${recovered.partition}`, partitions: count })
  }
  return count
}
