import { afterEach, describe, expect, it } from 'vitest'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

/**
 * The periodic sync (topic-sync.ts, group-offset-sync.ts, KIP-1279.md §3.5, §3.6) when a mirrored topic is
 * missing on the destination at the moment of the sync (deleted there by hand; the fetch round, which runs after
 * the sync in a tick, has not failed its partitions yet): that topic is skipped, its offsets too, and the other
 * topics' configs and offsets are synced as ever. Written for the survivors of the engine's mutation run
 * (docs/mutation.md); on port fakes.
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

const ORDERS = { topic: 'orders', partition: 0 }
const BILLING = { topic: 'billing', partition: 0 }

function destinationOffset(groupId: string, tp: { topic: string; partition: number }): number | undefined {
  return fake
    .host('b')
    .state.groupOffsets()
    .find((group) => group.groupId === groupId)
    ?.offsets.find((o) => o.topic === tp.topic && o.partition === tp.partition)?.offset
}

describe('the group offset sync with a mirrored topic missing on the destination', () => {
  it('skips that topic and syncs the offsets of the others, without a sync error', async () => {
    fake = await createFakeEngine(['a', 'b'])
    for (const tp of [ORDERS, BILLING]) {
      fake.source('a').createTopic(tp.topic, 1)
      fake.source('a').produce(tp, ['1', '2', '3'])
    }
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders', 'billing'], config: { 'mirror.metadata.refresh.interval.ms': 1_000 } })
    for (let i = 0; i < 3; i++) await fake.step()
    expect(fake.engine.partitions('m').map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING'])

    // The group's offset of the missing topic comes first: a sync that gave up there would never reach billing.
    fake.source('a').state.commit('g', ORDERS, 2, 0)
    fake.source('a').state.commit('g', BILLING, 2, 0)
    fake.host('b').state.topics.delete('orders')
    await fake.step(1_000)

    expect(destinationOffset('g', BILLING)).toBe(2)
    expect(destinationOffset('g', ORDERS)).toBeUndefined()
    expect([...fake.engine.syncErrors('m')]).toEqual([])
  })
  it('copies the other topics\' configs all the same: the missing topic is no config sync error', async () => {
    fake = await createFakeEngine(['a', 'b'])
    for (const tp of [ORDERS, BILLING]) {
      fake.source('a').createTopic(tp.topic, 1, { 'retention.ms': '1000' })
      fake.source('a').produce(tp, ['1', '2', '3'])
    }
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders', 'billing'], config: { 'mirror.metadata.refresh.interval.ms': 1_000 } })
    for (let i = 0; i < 3; i++) await fake.step()
    fake.source('a').state.topic('orders').configs['retention.ms'] = '2000'
    fake.source('a').state.topic('billing').configs['retention.ms'] = '2000'
    fake.source('a').state.commit('g', BILLING, 2, 0)
    fake.host('b').state.topics.delete('orders')
    // And the missing topic grew at the source: nothing to add its partition to.
    await fake.host('a').createMirrorPartitions('orders', 2)
    await fake.step(1_000)

    expect(fake.host('b').state.topic('billing').configs['retention.ms']).toBe('2000')
    expect(destinationOffset('g', BILLING)).toBe(2)
    expect([...fake.engine.syncErrors('m')]).toEqual([])
  })
})
