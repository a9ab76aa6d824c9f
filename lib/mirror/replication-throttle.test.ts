import { describe, expect, it } from 'vitest'
import { BURST_SECONDS, parseThrottledReplicas, throttledPartitionBudget, throttledReplicaEntryProblem, TokenBucket } from './replication-throttle'

describe('TokenBucket (mirror.replication.throttled.rate)', () => {
  it('starts with one second of the rate and refills at the rate up to that capacity', () => {
    const bucket = new TokenBucket(1000, 0)
    expect(bucket.capacity).toBe(1000 * BURST_SECONDS)
    expect(bucket.available(0)).toBe(1000)
    bucket.consume(1000, 0)
    expect(bucket.available(0)).toBe(0)
    expect(bucket.available(250)).toBe(250)
    expect(bucket.available(5_000)).toBe(1000)
  })

  it('goes into debt for bytes counted after a fetch, and admits nothing until it is paid', () => {
    const bucket = new TokenBucket(1000, 0)
    bucket.consume(3000, 0)
    expect(bucket.available(0)).toBe(-2000)
    expect(bucket.available(1_000)).toBe(-1000)
    expect(bucket.available(2_500)).toBe(500)
  })

  it('holds the rate over time: what it lets through in a window is the rate times the window plus one burst', () => {
    const bucket = new TokenBucket(10_000, 0)
    let fetched = 0
    for (let now = 0; now <= 60_000; now += 100) {
      const available = bucket.available(now)
      if (available <= 0) continue
      // Each fetch takes its budget and overshoots by a 1.5 KB batch.
      const bytes = available + 1500
      bucket.consume(bytes, now)
      fetched += bytes
    }
    expect(fetched).toBeGreaterThanOrEqual(10_000 * 60)
    expect(fetched).toBeLessThanOrEqual(10_000 * 61 + 1500)
  })

  it('adds nothing when the clock steps back, and counts from the latest time seen', () => {
    const bucket = new TokenBucket(1000, 1_000)
    bucket.consume(1000, 1_000)
    expect(bucket.available(500)).toBe(0)
    expect(bucket.available(1_500)).toBe(500)
  })

  it('refuses a rate that is not positive and byte counts that are negative', () => {
    expect(() => new TokenBucket(0, 0)).toThrow(/positive/)
    expect(() => new TokenBucket(-5, 0)).toThrow(/positive/)
    expect(() => new TokenBucket(Number.NaN, 0)).toThrow(/positive/)
    expect(() => new TokenBucket(0, 0)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }))
    const bucket = new TokenBucket(1, 0)
    // A fetch that returned nothing counts nothing.
    bucket.consume(0, 0)
    expect(() => bucket.consume(-1, 0)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }))
    expect(() => bucket.consume(-1, 0)).toThrow(/non-negative/)
    expect(() => bucket.consume(Number.POSITIVE_INFINITY, 0)).toThrow(/non-negative/)
    expect(bucket.available(0)).toBe(1)
  })
})

describe('mirror.replication.throttled.replicas', () => {
  it('* throttles every partition', () => {
    const replicas = parseThrottledReplicas(['*'])
    expect([replicas.isThrottled('a', 0), replicas.isThrottled('b', 7)]).toEqual([true, true])
  })

  it('<topic>:* throttles a topic, <topic>:<partition> one partition, nothing else', () => {
    const replicas = parseThrottledReplicas(['orders:*', 'payments:2'])
    expect(replicas.isThrottled('orders', 0)).toBe(true)
    expect(replicas.isThrottled('orders', 9)).toBe(true)
    expect(replicas.isThrottled('payments', 2)).toBe(true)
    expect(replicas.isThrottled('payments', 1)).toBe(false)
    expect(replicas.isThrottled('audit', 0)).toBe(false)
    expect(parseThrottledReplicas([]).isThrottled('orders', 0)).toBe(false)
  })

  it('a topic name may hold dots and dashes; the partition is after the last colon', () => {
    expect(throttledReplicaEntryProblem('eu.orders-v2:3')).toBeNull()
    expect(parseThrottledReplicas(['eu.orders-v2:3']).isThrottled('eu.orders-v2', 3)).toBe(true)
  })

  it('names what is wrong with a malformed entry, and refuses a list holding one', () => {
    expect(throttledReplicaEntryProblem('orders')).toBe('"orders" is not "*", "<topic>:*" or "<topic>:<partition>"')
    expect(throttledReplicaEntryProblem(':1')).toBe('"" in ":1" is not a topic name')
    expect(throttledReplicaEntryProblem('a b:1')).toBe('"a b" in "a b:1" is not a topic name')
    expect(throttledReplicaEntryProblem('orders:-1')).toBe('"-1" in "orders:-1" is not a partition number or "*"')
    expect(throttledReplicaEntryProblem('orders:01')).toBe('"01" in "orders:01" is not a partition number or "*"')
    expect(throttledReplicaEntryProblem('orders:')).toBe('"" in "orders:" is not a partition number or "*"')
    expect(throttledReplicaEntryProblem('orders:0')).toBeNull()
    expect(throttledReplicaEntryProblem('orders:1234567890')).toBeNull()
    expect(throttledReplicaEntryProblem('orders:12345678901')).not.toBeNull()
    expect(() => parseThrottledReplicas(['orders'])).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }))
    expect(() => parseThrottledReplicas(['*', 'orders', 'x:y'])).toThrow('mirror.replication.throttled.replicas: "orders" is not "*", "<topic>:*" or "<topic>:<partition>"; "y" in "x:y" is not a partition number or "*"')
  })
})

describe('throttledPartitionBudget', () => {
  it('shares the available bytes equally, within each partition’s own maximum', () => {
    expect(throttledPartitionBudget(10_000, 4, 1_000_000)).toBe(2500)
    expect(throttledPartitionBudget(10_000, 3, 1_000_000)).toBe(3333)
    expect(throttledPartitionBudget(10_000, 1, 4096)).toBe(4096)
  })

  it('gives at least one byte while any token is left, and admits nobody without tokens', () => {
    expect(throttledPartitionBudget(2, 5, 4096)).toBe(1)
    expect(throttledPartitionBudget(0, 5, 4096)).toBeNull()
    expect(throttledPartitionBudget(-100, 5, 4096)).toBeNull()
  })

  it('leaves the maximum alone when no partition is throttled', () => {
    expect(throttledPartitionBudget(0, 0, 4096)).toBe(4096)
  })
})
