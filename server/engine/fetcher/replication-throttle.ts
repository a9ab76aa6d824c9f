import 'server-only'
import { parseThrottledReplicas, throttledPartitionBudget, TokenBucket, UNTHROTTLED_RATE, type ThrottledReplicas } from '@/lib/mirror/replication-throttle'
import type { FetchPartitionRequest, FetchPartitionResult } from '@/server/cluster/ports'
import { DEFAULT_MIRROR_CONFIG } from '../config/mirror-config'
import type { ResolvedMirrorConfig, MirrorDefinition } from '../types'

/**
 * Per mirror, the replication throttle of its fetch rounds (lib/mirror/replication-throttle.ts): `admit`
 * before a fetch leaves out or narrows the throttled partitions, `record` after it counts their bytes.
 * The settings are read from the mirror's config at every round, so a PATCH takes effect at the next one.
 */

/** How long after the throttle last held a fetch back the mirror still shows as throttled. */
export const THROTTLED_SHOWN_MS = 5_000

export interface ThrottleStatus {
  /** The throttle held a fetch back or narrowed it in the last THROTTLED_SHOWN_MS: the rate is what limits the mirror now. */
  throttled: boolean
  /** The configured rate in bytes per second, null when the mirror is not throttled. */
  throttledRate: number | null
}

interface MirrorThrottle {
  rate: number
  replicasKey: string
  replicas: ThrottledReplicas
  bucket: TokenBucket
  lastLimitedAt: number | null
}

export class ReplicationThrottles {
  private readonly byMirror = new Map<string, MirrorThrottle>()
  /** Bytes fetched for throttled partitions since the start, per mirror (the mirror page's throttle use). */
  private readonly throttledTotals = new Map<string, number>()

  /**
   * The entries to fetch now: all of them when nothing is throttled; otherwise the throttled ones get an
   * equal share of the bucket as their byte budget, or are left out of this round while it is empty.
   */
  admit<E extends { request: FetchPartitionRequest }>(mirror: MirrorDefinition, entries: E[], now: number): E[] {
    const throttle = this.throttleOf(mirror, now)
    if (!throttle) return entries
    const isThrottled = (entry: E) => throttle.replicas.isThrottled(entry.request.topic, entry.request.partition)
    const throttledCount = entries.filter(isThrottled).length
    if (throttledCount === 0) return entries
    const budget = throttledPartitionBudget(throttle.bucket.available(now), throttledCount, mirror.config['fetch.max.bytes'])
    if (budget === null) {
      throttle.lastLimitedAt = now
      return entries.filter((entry) => !isThrottled(entry))
    }
    return entries.map((entry) => (isThrottled(entry) && budget < entry.request.maxBytes ? { ...entry, request: { ...entry.request, maxBytes: budget } } : entry))
  }

  /** Counts the bytes the throttled partitions of a fetch returned. `results` are in the order of `entries`. */
  record(mirror: MirrorDefinition, entries: ReadonlyArray<{ request: FetchPartitionRequest }>, results: readonly FetchPartitionResult[], now: number): void {
    const throttle = this.byMirror.get(mirror.name)
    if (!throttle || throttle.rate !== settingsOf(mirror.config).rate) return
    let bytes = 0
    for (const [index, result] of results.entries()) {
      const request = entries[index]?.request
      if (!request || !result.ok || !throttle.replicas.isThrottled(request.topic, request.partition)) continue
      bytes += result.records.byteLength
      // A narrowed partition that stopped short of the source's high watermark would have taken more.
      if (request.maxBytes < mirror.config['fetch.max.bytes'] && result.nextRecordTimestamp !== null) throttle.lastLimitedAt = now
    }
    throttle.bucket.consume(bytes, now)
    this.throttledTotals.set(mirror.name, (this.throttledTotals.get(mirror.name) ?? 0) + bytes)
  }

  /** Bytes fetched for the mirror's throttled partitions since the start (cumulative). */
  throttledBytes(mirrorName: string): number {
    return this.throttledTotals.get(mirrorName) ?? 0
  }

  status(mirror: MirrorDefinition, now: number): ThrottleStatus {
    const { rate } = settingsOf(mirror.config)
    if (rate === UNTHROTTLED_RATE) return { throttled: false, throttledRate: null }
    const lastLimitedAt = this.byMirror.get(mirror.name)?.lastLimitedAt ?? null
    return { throttled: lastLimitedAt !== null && now - lastLimitedAt <= THROTTLED_SHOWN_MS, throttledRate: rate }
  }

  /** Whether the mirror's config throttles any of its partitions (then every fetch request may be narrowed). */
  limits(mirror: MirrorDefinition): boolean {
    const { rate, replicas } = settingsOf(mirror.config)
    return rate !== UNTHROTTLED_RATE && replicas.length > 0
  }

  forget(mirrorName: string): void {
    this.byMirror.delete(mirrorName)
    this.throttledTotals.delete(mirrorName)
  }

  private throttleOf(mirror: MirrorDefinition, now: number): MirrorThrottle | null {
    const { rate, replicas } = settingsOf(mirror.config)
    if (rate === UNTHROTTLED_RATE || replicas.length === 0) {
      this.byMirror.delete(mirror.name)
      return null
    }
    const replicasKey = replicas.join('\n')
    let throttle = this.byMirror.get(mirror.name)
    if (!throttle || throttle.rate !== rate) {
      // A new rate starts with a full bucket of its own: what was used under the old rate says nothing about the new one.
      throttle = { rate, replicasKey, replicas: parseThrottledReplicas(replicas), bucket: new TokenBucket(rate, now), lastLimitedAt: throttle?.lastLimitedAt ?? null }
      this.byMirror.set(mirror.name, throttle)
    } else if (throttle.replicasKey !== replicasKey) {
      throttle.replicasKey = replicasKey
      throttle.replicas = parseThrottledReplicas(replicas)
    }
    return throttle
  }
}

/** A mirror stored before throttling existed has neither key: it is not throttled. */
function settingsOf(config: Partial<ResolvedMirrorConfig>): { rate: number; replicas: readonly string[] } {
  return {
    rate: config['mirror.replication.throttled.rate'] ?? UNTHROTTLED_RATE,
    replicas: config['mirror.replication.throttled.replicas'] ?? DEFAULT_MIRROR_CONFIG['mirror.replication.throttled.replicas'],
  }
}
