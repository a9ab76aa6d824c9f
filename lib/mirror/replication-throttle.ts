/**
 * Replication throttling of a mirror's fetches (KIP-1279.md §7.1 `mirror.replication.throttled.rate`, §7.2
 * `mirror.replication.throttled.replicas`), as Kafka's replication quota does it: a throttled partition is
 * left out of a fetch while the quota is used up, and bytes are counted after they arrive, so one fetch may
 * overshoot and the next ones wait until the debt is paid. Over time the rate holds; only the bucket's
 * capacity (one second of the rate) and a fetch's overshoot can exceed it, once.
 */
import { MirrorError } from './errors'
import { isValidName } from './names'
import { TopicPartitionMap } from './topic-partition'

/** `mirror.replication.throttled.rate` of 0: no throttle. */
export const UNTHROTTLED_RATE = 0

/** `mirror.replication.throttled.replicas` by default: the rate, once set, covers every partition of the mirror. */
export const DEFAULT_THROTTLED_REPLICAS: readonly string[] = ['*']

/** How many seconds of the rate the bucket holds when idle: the burst a throttled mirror may take at once. */
export const BURST_SECONDS = 1

/** A token bucket of bytes; tokens may go below zero (bytes counted after a fetch), and then nothing is admitted. */
export class TokenBucket {
  private tokens: number
  private updatedAt: number

  constructor(
    readonly bytesPerSecond: number,
    now: number,
  ) {
    if (!Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) throw new MirrorError('VALIDATION_FAILED', `a throttle rate must be positive, got ${bytesPerSecond}`)
    this.tokens = this.capacity
    this.updatedAt = now
  }

  get capacity(): number {
    return this.bytesPerSecond * BURST_SECONDS
  }

  /** Bytes that may be fetched now (negative: the debt still to pay). */
  available(now: number): number {
    this.refill(now)
    return this.tokens
  }

  /** Counts bytes fetched. */
  consume(bytes: number, now: number): void {
    if (!Number.isFinite(bytes) || bytes < 0) throw new MirrorError('VALIDATION_FAILED', `fetched bytes must be a non-negative number, got ${bytes}`)
    this.refill(now)
    this.tokens -= bytes
  }

  private refill(now: number): void {
    // A clock that steps back adds nothing (and takes nothing).
    const elapsedMs = Math.max(0, now - this.updatedAt)
    this.tokens = Math.min(this.capacity, this.tokens + (elapsedMs * this.bytesPerSecond) / 1000)
    this.updatedAt = Math.max(this.updatedAt, now)
  }
}

/**
 * Which of a mirror's partitions the rate applies to. Entries: `*` (every partition), `<topic>:*` (every
 * partition of a topic) or `<topic>:<partition>`; Kafka's `[partition]:[broker]` has no meaning for a
 * mirror's fetch, whose replica is the destination's leader.
 */
export interface ThrottledReplicas {
  isThrottled(topic: string, partition: number): boolean
}

/** Null when `entry` is well formed, else why not. */
export function throttledReplicaEntryProblem(entry: string): string | null {
  if (entry === '*') return null
  const colon = entry.lastIndexOf(':')
  if (colon < 0) return `"${entry}" is not "*", "<topic>:*" or "<topic>:<partition>"`
  const topic = entry.slice(0, colon)
  const partition = entry.slice(colon + 1)
  if (!isValidName(topic)) return `"${topic}" in "${entry}" is not a topic name`
  if (partition !== '*' && !/^(0|[1-9][0-9]{0,9})$/.test(partition)) return `"${partition}" in "${entry}" is not a partition number or "*"`
  return null
}

export function parseThrottledReplicas(entries: readonly string[]): ThrottledReplicas {
  const problems = entries.map(throttledReplicaEntryProblem).filter((problem) => problem !== null)
  if (problems.length > 0) throw new MirrorError('VALIDATION_FAILED', `mirror.replication.throttled.replicas: ${problems.join('; ')}`)
  if (entries.includes('*')) return { isThrottled: () => true }
  const wholeTopics = new Set<string>()
  const partitions = new TopicPartitionMap<true>()
  for (const entry of entries) {
    const colon = entry.lastIndexOf(':')
    const topic = entry.slice(0, colon)
    const partition = entry.slice(colon + 1)
    if (partition === '*') wholeTopics.add(topic)
    else partitions.set({ topic, partition: Number(partition) }, true)
  }
  return { isThrottled: (topic, partition) => wholeTopics.has(topic) || partitions.has({ topic, partition }) }
}

/**
 * The byte budget of each throttled partition in one fetch: the available tokens shared equally, at least
 * one byte (a fetch returns at least one whole batch anyway), never above the partition's own `maxBytes`.
 * Zero partitions admitted (`null`) while the bucket holds no tokens.
 */
export function throttledPartitionBudget(availableBytes: number, throttledPartitions: number, maxBytes: number): number | null {
  if (throttledPartitions <= 0) return maxBytes
  if (availableBytes <= 0) return null
  return Math.min(maxBytes, Math.max(1, Math.floor(availableBytes / throttledPartitions)))
}
