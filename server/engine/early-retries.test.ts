import { afterEach, describe, expect, it } from 'vitest'
import { ClusterLinks } from '@/server/cluster/links'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { EARLY_RETRY_SPREAD_MS, retrySiblingsSoon } from './runner/early-retries'
import type { EngineMirror } from './state/engine-mirror'
import type { PartitionRuntime } from './types'
import { createEngineHarness, type EngineHarness } from './testing/harness'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

/** Jitter that differs from one draw to the next, the same in every run. */
function cyclingRandom(values: readonly number[]): () => number {
  let next = 0
  return () => values[next++ % values.length]!
}

describe('retries after the source answers again', () => {
  it('a healed link: once one partition is answered, the others that failed on the source retry within the spread, not at their backoff', async () => {
    const links = new ClusterLinks()
    harness = await createEngineHarness({ clusters: { a: {}, b: {} }, sourceAs: (cluster) => links.remoteSource(cluster, () => []), random: cyclingRandom([0.05, 0.95, 0.5, 0.8, 0.3, 0.65]) })
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 6, replicationFactor: 1 })
    // One failure puts each partition's retry anywhere in the next minute (full jitter of the initial backoff).
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'mirror.failed.retry.initial.backoff.ms': 60_000 } })
    await harness.run(4)
    expect(harness.engine.partitions('m').every((p) => p.state === 'MIRRORING')).toBe(true)

    links.cutOff('a')
    await harness.run(3)
    const failed = harness.engine.partitions('m')
    expect(failed.map((p) => [p.state, p.failureCode])).toEqual(failed.map(() => ['FAILED', 'SOURCE_UNREACHABLE']))
    const retries = failed.map((p) => p.nextRetryAt!).sort((x, y) => x - y)
    // The precondition that makes this test mean something: the retries lie far apart.
    expect(retries.at(-1)! - retries[0]!).toBeGreaterThan(30_000)

    links.heal('a')
    await a.produce('t', { partition: 0, records: [{ value: 'after the heal' }] })
    // Up to the first partition's own retry, and the spread after it: every partition is back.
    const until = retries[0]! + EARLY_RETRY_SPREAD_MS + 1_000
    while (harness.clock.now() < until) await harness.run(1, 200)
    const healed = harness.engine.partitions('m')
    expect(healed.map((p) => [p.partition, p.state, p.error])).toEqual(healed.map((p) => [p.partition, 'MIRRORING', null]))
    expect(harness.clock.now()).toBeLessThan(retries.at(-1)!)
    expect((await harness.cluster('b').readRecords('t', 0, { limit: 10 })).records.map((r) => r.value)).toContain('after the heal')
  })

  it('only partitions FAILED for the same cluster-wide reason with a retry further out than the spread come forward', () => {
    const now = 1_000_000
    const runtime = (partition: number, state: string, failureCode: string | null, retryAt: number | null) =>
      ({ topic: 't', partition, value: { state }, failureCode, retryAt }) as unknown as PartitionRuntime
    const recovered = runtime(0, 'MIRRORING', 'SOURCE_UNREACHABLE', null)
    const late = runtime(1, 'FAILED', 'SOURCE_UNREACHABLE', now + 200_000)
    const otherCause = runtime(2, 'FAILED', 'FETCH_ERROR', now + 200_000)
    const dueSoon = runtime(3, 'FAILED', 'SOURCE_UNREACHABLE', now + 500)
    const notFailed = runtime(4, 'PAUSED', null, null)
    const destination = runtime(5, 'FAILED', 'DESTINATION_UNREACHABLE', now + 200_000)
    const partitions = new TopicPartitionMap<PartitionRuntime>()
    for (const r of [recovered, late, otherCause, dueSoon, notFailed, destination]) partitions.set(r, r)
    const forward: Array<[number, number]> = []
    const ctx = {
      now: () => now,
      random: () => 0.25,
      log: () => undefined,
      runner: { retryEarly: (r: PartitionRuntime, at: number) => (forward.push([r.partition, at]), true) },
    } as unknown as Parameters<typeof retrySiblingsSoon>[0]
    const mirror = { definition: { name: 'm' }, partitions } as unknown as EngineMirror
    expect(retrySiblingsSoon(ctx, mirror, recovered, 'SOURCE_UNREACHABLE')).toBe(1)
    expect(forward).toEqual([[1, now + EARLY_RETRY_SPREAD_MS / 4]])
    forward.length = 0
    expect(retrySiblingsSoon(ctx, mirror, recovered, 'DESTINATION_UNREACHABLE')).toBe(1)
    expect(forward).toEqual([[5, now + EARLY_RETRY_SPREAD_MS / 4]])
    // A partition's own failure says nothing about the others.
    expect(retrySiblingsSoon(ctx, mirror, recovered, 'FETCH_ERROR')).toBe(0)
    expect(retrySiblingsSoon(ctx, mirror, recovered, null)).toBe(0)
  })

  it('partitions recovering within the spread window do not scan the mirror again; the first one after it does', () => {
    let now = 1_000_000
    const runtime = (partition: number, state: string, retryAt: number | null) =>
      ({ topic: 't', partition, value: { state }, failureCode: 'SOURCE_UNREACHABLE', retryAt }) as unknown as PartitionRuntime
    const first = runtime(0, 'MIRRORING', null)
    const second = runtime(1, 'MIRRORING', null)
    const partitions = new TopicPartitionMap<PartitionRuntime>()
    for (const r of [first, second, runtime(2, 'FAILED', now + 200_000)]) partitions.set(r, r)
    const forward: number[] = []
    const ctx = {
      now: () => now,
      random: () => 0.5,
      log: () => undefined,
      runner: { retryEarly: (r: PartitionRuntime) => (forward.push(r.partition), true) },
    } as unknown as Parameters<typeof retrySiblingsSoon>[0]
    const mirror = { definition: { name: 'm' }, partitions } as unknown as EngineMirror
    expect(retrySiblingsSoon(ctx, mirror, first, 'SOURCE_UNREACHABLE')).toBe(1)
    const late = runtime(3, 'FAILED', now + 200_000)
    partitions.set(late, late)
    now += EARLY_RETRY_SPREAD_MS - 1
    expect(retrySiblingsSoon(ctx, mirror, second, 'SOURCE_UNREACHABLE')).toBe(0)
    now += 1
    expect(retrySiblingsSoon(ctx, mirror, second, 'SOURCE_UNREACHABLE')).toBe(2)
    expect(forward).toEqual([2, 2, 3])
  })
})
