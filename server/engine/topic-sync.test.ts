import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * The periodic sync of server/engine/syncs/topic-sync.ts where no other path does its job, written for the
 * survivors of its mutation run (docs/mutation.md). Real embedded clusters on real files, through the
 * engine's facade.
 */

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

function partitionsOf(h: EngineHarness, mirror = 'm') {
  return h.engine.partitions(mirror).map(({ partition, state, retryAttempt, error }) => ({ partition, state, retryAttempt, error }))
}

describe('the periodic sync (KIP-1279.md §3.5, §7.3)', () => {
  it('#35 counts only consecutive syncs that miss a source topic: one miss, then the topic again, then one miss, is no deletion', async () => {
    // A source whose metadata leaves the topic out now and then (a lagging metadata cache, say): two misses
    // in a row fail the partitions for good, two misses with a sighting between them do not.
    const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.produce('t', { records: [{ value: '1' }] })
    let hidden = false
    const flaky = new Proxy(a, {
      get(target, property) {
        if (property === 'describeTopics') {
          return async (...args: Parameters<EmbeddedCluster['describeTopics']>) => (await target.describeTopics(...args)).filter((topic) => !hidden || topic.name !== 't')
        }
        const value: unknown = Reflect.get(target, property, target)
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      },
    })
    h.clusters.set('a', flaky)
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await h.run(3, 1_000)
    expect(partitionsOf(h)).toEqual([expect.objectContaining({ state: 'MIRRORING' })])

    for (const hide of [true, false, true]) {
      hidden = hide
      await h.run(1, 1_000)
    }
    expect(partitionsOf(h)).toEqual([expect.objectContaining({ state: 'MIRRORING', error: null })])
    await h.run(1, 1_000)
    expect(partitionsOf(h)).toEqual([expect.objectContaining({ state: 'FAILED', retryAttempt: -1, error: 'The source topic is deleted.' })])
  })

  it('#35 fails a mirror whose partitions are not fetching when its source address answers as another cluster', async () => {
    // The fetch round checks the cluster id only when something is fetched; with every partition waiting
    // out a retry backoff, the sync is the only check, and the failure it records is for good.
    const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
    await h.cluster('a').createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await h.cluster('a').produce('t', { partition: 0, records: [{ value: '1' }] })
    await h.engine.createMirror({
      name: 'm',
      sourceCluster: 'a',
      destinationCluster: 'b',
      topics: ['t'],
      config: { ...FAST_SYNC, 'mirror.failed.retry.initial.backoff.ms': 600_000, 'mirror.failed.retry.max.backoff.ms': 600_000 },
    })
    await h.run(3, 1_000)
    expect(partitionsOf(h).map(({ state }) => state)).toEqual(['MIRRORING', 'MIRRORING'])

    await h.cluster('a').close()
    await h.run(2, 1_000)
    expect(partitionsOf(h)).toEqual([
      expect.objectContaining({ state: 'FAILED', retryAttempt: 1 }),
      expect.objectContaining({ state: 'FAILED', retryAttempt: 1 }),
    ])

    const replacement = await EmbeddedCluster.open(path.join(h.root, 'a-replacement'), { name: 'a', brokers: 3, clock: h.clock })
    h.clusters.set('a', replacement)
    await replacement.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await h.run(3, 1_000)
    expect(partitionsOf(h)).toEqual([
      expect.objectContaining({ state: 'FAILED', retryAttempt: -1, error: expect.stringContaining('cluster ID') }),
      expect.objectContaining({ state: 'FAILED', retryAttempt: -1, error: expect.stringContaining('cluster ID') }),
    ])
  })

  it('learns the source leaders, so each source broker gets a fetch of its own and an answer budget of its own', async () => {
    // Three partitions led by three brokers, answers of one batch: one fetch per leader moves all three
    // each round, one fetch for all of them would move one.
    const h = (harness = await createEngineHarness({ clusters: { a: { brokers: 3 }, b: { brokers: 1 } } }))
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 3, replicationFactor: 1 })
    expect(new Set((await a.describeTopic('t')).partitions.map((partition) => partition.leader)).size).toBe(3)
    for (let batch = 0; batch < 20; batch++) {
      for (const partition of [0, 1, 2]) await a.produce('t', { partition, records: [{ value: 'x'.repeat(500) }] })
    }
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { ...FAST_SYNC, 'fetch.max.bytes': 1024, 'fetch.response.max.bytes': 1024 } })
    for (let i = 0; i < 20 && !h.engine.partitions('m').every((partition) => partition.state === 'MIRRORING'); i++) await h.run(1)
    // A sync (every second here) has run: it records each partition's source leader.
    await h.run(2, 1_000)
    const before = h.engine.partitions('m').map((partition) => partition.destinationLogEndOffset ?? 0)
    await h.run(3)
    const after = h.engine.partitions('m').map((partition) => partition.destinationLogEndOffset ?? 0)
    expect(after.map((offset, index) => offset - before[index]!)).toEqual([3, 3, 3])
  })

  it('#34 a partition-count increase starts only the new partitions; the mirrored ones keep mirroring, untouched', async () => {
    const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.produce('t', { partition: 0, records: [{ value: '1' }, { value: '2' }] })
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await h.run(3, 1_000)
    const transitions = h.engine.partitionHistory('m', 't', 0).length
    const { stateEpoch } = h.engine.partitions('m')[0]!
    await a.createPartitions('t', 2)
    await a.produce('t', { partition: 1, records: [{ value: 'new' }] })
    await h.run(4, 1_000)
    expect(h.engine.partitions('m').map(({ partition, state, destinationLogEndOffset }) => [partition, state, destinationLogEndOffset])).toEqual([
      [0, 'MIRRORING', 2],
      [1, 'MIRRORING', 1],
    ])
    // Partition 0 went through no state change: it was not created again and realigned.
    expect(h.engine.partitionHistory('m', 't', 0)).toHaveLength(transitions)
    expect(h.engine.partitions('m')[0]!.stateEpoch).toBe(stateEpoch)
  })

  it("#32 copies a source config change when the topic's other synced configs are unchanged", async () => {
    const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1, configs: { 'retention.ms': '1000000', 'max.message.bytes': '100000' } })
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await h.run(3, 1_000)
    await a.alterTopicConfigs('t', { 'retention.ms': '2000000' })
    await h.run(2, 1_000)
    expect((await h.cluster('b').describeTopic('t')).configs).toMatchObject({ 'retention.ms': '2000000', 'max.message.bytes': '100000' })
  })
})
