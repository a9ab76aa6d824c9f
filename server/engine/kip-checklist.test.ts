import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FetchPartitionRequest } from '@/server/cluster/ports'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * KIP-1279.md §11 items #11, #41 and #42 as far as they apply here: the fetch the engine makes, what a
 * mirror's description carries (and the failback lookup), and config changes that must not interrupt
 * fetching.
 */

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

describe('#11 the mirror fetch is a consumer fetch', () => {
  it('reads uncommitted data, fetches from the destination log end and carries the last fetched epoch', async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 3 }, b: { brokers: 3 } } })
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await a.produce('t', { partition: 0, records: [{ value: '1' }, { value: '2' }] })
    const requests: FetchPartitionRequest[] = []
    const fetch = a.fetch.bind(a)
    vi.spyOn(a, 'fetch').mockImplementation(async (partitions, options) => {
      requests.push(...partitions.map((request) => ({ ...request })))
      return fetch(partitions, options)
    })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(3)

    // An open transaction's records are mirrored before any marker (READ_UNCOMMITTED).
    const producer = await a.createTransactionalProducer('tx')
    await producer.send('t', { partition: 0, records: [{ value: 'open' }] })
    // A source election raises the epoch of what is written next.
    const leader = (await a.describePartition({ topic: 't', partition: 0 })).leader
    const [other] = (await a.describePartition({ topic: 't', partition: 0 })).isr.filter((broker) => broker !== leader)
    await a.electLeader({ topic: 't', partition: 0 }, other!)
    await a.produce('t', { partition: 0, records: [{ value: '3' }] })
    await harness.run(4)

    const destination = await b.readRecords('t', 0, { limit: 100 })
    expect(destination.records.map((record) => [record.value, record.leaderEpoch])).toEqual([
      ['1', 0],
      ['2', 0],
      ['open', 0],
      ['3', 1],
    ])
    expect(await b.openTransactions({ topic: 't', partition: 0 })).toEqual([expect.objectContaining({ firstOffset: 2 })])
    const positions = requests.map(({ fetchOffset, lastFetchedEpoch }) => [fetchOffset, lastFetchedEpoch])
    expect(positions[0]).toEqual([0, -1])
    expect(positions).toContainEqual([2, 0])
    expect(positions.at(-1)).toEqual([4, 1])
  })
})

describe('#41 what a mirror describes per partition, and the last mirror position lookup', () => {
  it('state, error, retry attempt and offsets per partition; exact lag only while MIRRORING, lower bounds once the source is not read', async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    const a = harness.cluster('a')
    for (const topic of ['orders', 'payments', 'gone']) {
      await a.createTopic({ name: topic, partitions: 1, replicationFactor: 1 })
      await a.produce(topic, { partition: 0, records: [{ value: '1' }, { value: '2' }] })
    }
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders', 'payments', 'gone'], config: FAST_SYNC })
    await harness.run(3)
    await harness.engine.pauseTopics('m', ['payments'])
    await a.deleteTopic('gone')
    await harness.run(3, 1_000)
    const byTopic = Object.fromEntries(harness.engine.partitions('m').map((p) => [p.topic, p]))
    expect(byTopic.orders).toMatchObject({ state: 'MIRRORING', error: null, retryAttempt: 0, sourceHighWatermark: 2, destinationHighWatermark: 2, offsetLag: 0 })
    expect(byTopic.orders).toMatchObject({ lagKnown: true, lagAsOf: byTopic.orders!.lastFetchAt, timeLagFrom: null })
    // Not fetched while PAUSED or FAILED: the last known figure, as of the last reading of the source (the last
    // fetch, or Mirrorboard's own reading of it since: lag/source-observer.ts), and a time lag that grows.
    expect(byTopic.payments).toMatchObject({ state: 'PAUSED', error: null, retryAttempt: 0, destinationHighWatermark: 2, offsetLag: 0, lagKnown: false })
    expect(byTopic.payments!.lagAsOf).toBeGreaterThanOrEqual(byTopic.payments!.lastFetchAt!)
    expect(byTopic.gone).toMatchObject({ state: 'FAILED', error: 'The source topic is deleted.', retryAttempt: -1, offsetLag: 0, lagKnown: false, failureCode: 'SOURCE_TOPIC_DELETED', nextRetryAt: null })
  })

  it('answers the max last mirror position over mirrors whose source is the given cluster id, nothing for others', async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    const tp = { topic: 't', partition: 0 }
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.produce('t', { partition: 0, records: [{ value: '1' }, { value: '2' }] })
    const stopAll = async (mirror: string) => {
      const { operation } = await harness.engine.failover(mirror, { confirm: mirror })
      await harness.engine.awaitOperation(operation.id)
    }
    await harness.engine.createMirror({ name: 'first', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(3)
    await stopAll('first')
    const sourceClusterId = await a.clusterId()
    expect(await b.lastMirrorPositions(sourceClusterId, [tp])).toEqual(new Map([['t-0', { epoch: 0, offset: 2 }]]))
    expect(await b.lastMirrorPositions('another-cluster', [tp])).toEqual(new Map())

    // A second mirror of the same topic, stopped further on: the lookup answers the larger position.
    await a.produce('t', { partition: 0, records: [{ value: '3' }, { value: '4' }, { value: '5' }] })
    await harness.engine.createMirror({ name: 'second', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(4)
    await stopAll('second')
    expect(harness.engine.partitions('first')[0]!.lastMirrorPosition).toEqual({ epoch: 0, offset: 2 })
    expect(harness.engine.partitions('second')[0]!.lastMirrorPosition).toEqual({ epoch: 0, offset: 5 })
    expect(await b.lastMirrorPositions(sourceClusterId, [tp])).toEqual(new Map([['t-0', { epoch: 0, offset: 5 }]]))
  })
})

describe('#42 filter changes do not interrupt fetching', () => {
  it('changing include/exclude filters and the excluded properties leaves every partition mirroring, without a transition', async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(3)
    const before = harness.engine.partitions('m').map((p) => ({ state: p.state, stateEpoch: p.stateEpoch, transitions: harness.engine.partitionHistory('m', p.topic, p.partition).length }))
    await harness.engine.updateMirrorConfig('m', {
      'topics.include': ['x.*'],
      'topics.exclude': ['__.*', 'y'],
      'groups.include': ['billing'],
      'topic.properties.exclude': ['retention.ms'],
    })
    await a.produce('t', { partition: 1, records: [{ value: 'after' }] })
    await harness.run(3, 1_000)
    expect(harness.engine.partitions('m').map((p) => ({ state: p.state, stateEpoch: p.stateEpoch, transitions: harness.engine.partitionHistory('m', p.topic, p.partition).length }))).toEqual(before)
    expect((await harness.cluster('b').readRecords('t', 1, { limit: 10 })).records.map((record) => record.value)).toEqual(['after'])
  })

  it('keeps the fetcher (its fetch session) across a filter change, and opens a new one only when the fetch size changes', async () => {
    // Fetch sessions serve held fetches: a round waits at most 20 ms at the caught-up source.
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, fetchMaxWaitMs: 20 })
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    const open = vi.spyOn(a, 'openFetchSession')
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(3)
    expect(open).toHaveBeenCalledTimes(1)
    await harness.engine.updateMirrorConfig('m', { 'topics.exclude': ['__.*', 'y'], 'groups.include': ['billing'], 'topic.properties.exclude': ['retention.ms'] })
    await a.produce('t', { partition: 0, records: [{ value: 'after' }] })
    await harness.run(3, 1_000)
    expect(open).toHaveBeenCalledTimes(1)
    expect((await harness.cluster('b').readRecords('t', 0, { limit: 10 })).records.map((record) => record.value)).toEqual(['after'])
    // A new fetch size changes every request the session holds: that one change does recreate it.
    await harness.engine.updateMirrorConfig('m', { 'fetch.max.bytes': 4096 })
    await harness.run(2)
    expect(open).toHaveBeenCalledTimes(2)
  })
})
