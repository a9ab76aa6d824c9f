import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'
import { mirrorOffsets0To2ThenPause, WORKED_EXAMPLE_CLUSTERS, WORKED_EXAMPLE_TOPIC } from './testing/worked-example'

/**
 * PREPARING's own lookup (server/engine/preparing/last-mirror-position.ts, KIP-1279.md §3.4), reached by a
 * restart of a stopped mirror: the checks the start's pre-checks and the periodic sync would otherwise make
 * first, so a mistake in PREPARING's copy went unnoticed (found by mutation testing).
 */

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function stoppedMirror(): Promise<EngineHarness> {
  const h = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
  harness = h
  await h.cluster('a').createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
  await h.cluster('a').produce('t', { partition: 0, records: ['1', '2'].map((value) => ({ value })) })
  await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
  await h.run(3)
  expect((await h.engine.awaitOperation((await h.engine.failover('m', { confirm: 'm' })).operation.id)).status).toBe('succeeded')
  return h
}

describe('PREPARING (#35, KIP-1279.md §3.4)', () => {
  it('#35 a restart against a source that is now another cluster fails in PREPARING for good, naming both ids, and truncates nothing', async () => {
    const h = await stoppedMirror()
    const expected = h.engine.getMirror('m').sourceClusterId
    const logBefore = (await h.cluster('b').readRecords('t', 0, { limit: 100 })).records
    // Same topic, same topic id, so the start's checks pass: only the cluster id tells the clusters apart.
    const { topicId } = await h.cluster('a').describeTopic('t')
    await h.cluster('a').close()
    const replacement = await EmbeddedCluster.open(path.join(h.root, 'a-replacement'), { name: 'a', brokers: 1, clock: h.clock })
    h.clusters.set('a', replacement)
    await replacement.createTopic({ name: 't', partitions: 1, replicationFactor: 1, topicId })
    const actual = await replacement.clusterId()

    await h.engine.startTopics('m', { topics: ['t'] })
    const [partition] = h.engine.partitions('m')
    expect(partition).toMatchObject({ state: 'FAILED', previousState: 'PREPARING', retryAttempt: -1 })
    expect(partition!.error).toContain(expected)
    expect(partition!.error).toContain(actual)
    expect((await h.cluster('b').readRecords('t', 0, { limit: 100 })).records).toEqual(logBefore)
  })

  it('#22 a failback\'s history says where PREPARING truncated, how many records went, and why', async () => {
    const h = await createEngineHarness({ clusters: WORKED_EXAMPLE_CLUSTERS })
    harness = h
    await mirrorOffsets0To2ThenPause(h)
    await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    await h.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [WORKED_EXAMPLE_TOPIC] })
    await h.run(3)
    expect(h.engine.partitionHistory('back', WORKED_EXAMPLE_TOPIC, 0).map(({ from, to, reason }) => ({ from, to, reason }))).toEqual([
      { from: 'UNKNOWN', to: 'PREPARING', reason: 'start requested' },
      { from: 'PREPARING', to: 'MIRRORING', reason: 'truncated to 3 (3 records removed, failback)' },
    ])
  })

  it('#22 a failback to an old source that lost its newest epoch keeps the records it still has', async () => {
    // a wrote epoch 0 and then epoch 5; b mirrored both and failed over (position (5, 5)). a then lost its
    // epoch-5 tail (an unclean election there): its log ends at 3 with epoch 0. Failing back, the truncation
    // point is the end of a's largest epoch at or below 5: everything a holds precedes the position and stays.
    const h = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    harness = h
    const a = h.cluster('a')
    const tp = { topic: 't', partition: 0 }
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.produce('t', { partition: 0, records: ['1', '2', '3'].map((value) => ({ value })) })
    await a.bumpLeaderEpoch(tp, 5)
    await a.produce('t', { partition: 0, records: ['4', '5'].map((value) => ({ value })) })
    await h.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(3)
    await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    expect(h.engine.partitions('dr')[0]!.lastMirrorPosition).toEqual({ epoch: 5, offset: 5 })
    await a.truncateTo(tp, 3)
    expect(await a.latestEpoch(tp)).toBe(0)

    await h.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: ['t'] })
    await h.run(5)
    expect(h.engine.partitions('back')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 3, removedRecords: 0 } })
    expect((await a.readRecords('t', 0, { limit: 100 })).records.map((record) => record.value).slice(0, 5)).toEqual(['1', '2', '3', '4', '5'])
  })
})
