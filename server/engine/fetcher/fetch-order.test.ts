import { afterEach, describe, expect, it } from 'vitest'
import { createEngineHarness, type EngineHarness } from '../testing/harness'

/**
 * Fairness of a leader's fetch (fetch-order.ts): the source fills an answer in request order up to
 * `fetch.response.max.bytes`, so the partitions that got records must move to the end of the next request,
 * or a busy partition at the front starves the ones behind it (as payments starved behind clickstream on the
 * throttled demo link).
 */

const RECORD = 'x'.repeat(200)

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

describe('the order of a fetch', () => {
  it('lets a quiet partition behind two busy ones through within a few rounds of one-batch answers', async () => {
    // One broker: every partition has the same leader, so they share each fetch.
    const h = (harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } }))
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 3, replicationFactor: 1 })
    // Partitions 0 and 1: 60 batches of about 1 KB each; partition 2: one record.
    for (let batch = 0; batch < 60; batch++) {
      for (const partition of [0, 1]) await a.produce('t', { partition, records: Array.from({ length: 5 }, () => ({ value: RECORD })) })
    }
    await a.produce('t', { partition: 2, records: [{ value: 'quiet' }] })
    // An answer holds one batch: whichever partition comes first takes it.
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'fetch.max.bytes': 1024, 'fetch.response.max.bytes': 1024 } })
    for (let i = 0; i < 20 && !h.engine.partitions('m').every((partition) => partition.state === 'MIRRORING'); i++) await h.run(1)
    const lagOf = (partition: number) => h.engine.partitions('m').find((entry) => entry.partition === partition)?.offsetLag
    await h.run(8)
    expect(lagOf(2)).toBe(0)
    // Both busy partitions moved too: neither took every answer.
    const mirrored = (partition: number) => h.engine.partitions('m').find((entry) => entry.partition === partition)?.destinationHighWatermark ?? 0
    expect(mirrored(0)).toBeGreaterThan(0)
    expect(mirrored(1)).toBeGreaterThan(0)
    expect(lagOf(0)).toBeGreaterThan(0)
  })
})
