import { afterEach, describe, expect, it, vi } from 'vitest'
import { ClusterError } from '@/server/cluster/errors'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

/**
 * Which partitions' states keep their topic in the periodic sync (topic-sync.ts, KIP-1279.md §3.5, §7.3): a
 * topic is synced while one of its partitions is still mirrored, not once all of them are paused or pausing,
 * nor while a failover hands it over (STOPPING: the topic is about to belong to its new writers); and one sync
 * does all of its work for a topic that grew. Written for the survivors of the engine's mutation run
 * (docs/mutation.md); on port fakes, so that a state that lasts a moment (PAUSING, STOPPING) can be held.
 */
let fake: FakeEngine
/** Lets a held failover go on (afterEach too: the engine closes only once its partitions' work has ended). */
let release: () => void = () => undefined
afterEach(async () => {
  release()
  await fake?.engine.close()
})

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }
/** Event-loop turns to wait for a state that takes a few: the engine yields on a real-time budget, so more under load. */
const TURNS = 500

async function mirroring(partitions: number): Promise<FakeEngine> {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', partitions, { 'retention.ms': '1000' })
  for (let partition = 0; partition < partitions; partition++) fake.source('a').produce({ topic: 'orders', partition }, ['1', '2'])
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], config: FAST_SYNC })
  for (let i = 0; i < 3; i++) await fake.step()
  return fake
}

const states = () => fake.engine.partitions('m').map((p) => p.state)
const destinationRetention = () => fake.host('b').state.topic('orders').configs['retention.ms']

describe('the periodic sync by partition state', () => {
  it('leaves a topic alone while its failover runs (STOPPING): a source config change and a new source partition are not copied', async () => {
    await mirroring(1)
    expect(states()).toEqual(['MIRRORING'])
    expect(destinationRetention()).toBe('1000')
    // Hold the failover at its reset record, the last step before STOPPED.
    const held = new Promise<void>((resolve) => (release = resolve))
    const append = fake.host('b').appendMirrorPidReset.bind(fake.host('b'))
    vi.spyOn(fake.host('b'), 'appendMirrorPidReset').mockImplementation(async (tp) => {
      await held
      return append(tp)
    })
    const { operation } = await fake.engine.failover('m', { confirm: 'm' })
    for (let i = 0; i < TURNS && states()[0] !== 'STOPPING'; i++) await new Promise((resolve) => setTimeout(resolve, 1))
    expect(states()).toEqual(['STOPPING'])

    fake.source('a').state.topic('orders').configs['retention.ms'] = '2000'
    // The source's partition count grows (the fake host face of cluster a adds to the topics they share).
    await fake.host('a').createMirrorPartitions('orders', 2)
    const alters = vi.spyOn(fake.host('b'), 'alterTopicConfigs')
    const creates = vi.spyOn(fake.host('b'), 'createMirrorPartitions')
    // Syncs while the partition is STOPPING (tick, not step: step would wait for the held failover).
    for (let i = 0; i < 3; i++) {
      fake.advance(1_000)
      await fake.engine.tick()
    }
    expect(states()).toEqual(['STOPPING'])
    expect(alters).not.toHaveBeenCalled()
    expect(creates).not.toHaveBeenCalled()
    expect(destinationRetention()).toBe('1000')

    release()
    expect((await fake.engine.awaitOperation(operation.id)).status).toBe('succeeded')
    expect(fake.engine.partitions('m').map((p) => [p.partition, p.state])).toEqual([[0, 'STOPPED']])
  })

  it('leaves a topic alone once every partition of it is paused', async () => {
    await mirroring(2)
    await fake.engine.pauseTopics('m', ['orders'])
    await fake.engine.settle()
    expect(states()).toEqual(['PAUSED', 'PAUSED'])
    fake.source('a').state.topic('orders').configs['retention.ms'] = '2000'
    const alters = vi.spyOn(fake.host('b'), 'alterTopicConfigs')
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    expect(alters).not.toHaveBeenCalled()
    expect(destinationRetention()).toBe('1000')
    await fake.engine.resumeTopics('m', ['orders'])
    await fake.step(1_000)
    await fake.step(1_000)
    expect(destinationRetention()).toBe('2000')
  })
  it('leaves a topic alone while its pause is being recorded (PAUSING)', async () => {
    await mirroring(1)
    // Hold the PAUSED record: until it is written the partition is PAUSING.
    const held = new Promise<void>((resolve) => (release = resolve))
    const append = fake.host('b').appendMirrorState.bind(fake.host('b'))
    vi.spyOn(fake.host('b'), 'appendMirrorState').mockImplementation(async (entries) => {
      if (entries.some((entry) => entry.value?.includes('"state":"PAUSED"'))) await held
      return append(entries)
    })
    const pause = fake.engine.pauseTopics('m', ['orders'])
    for (let i = 0; i < TURNS && states()[0] !== 'PAUSING'; i++) await new Promise((resolve) => setTimeout(resolve, 1))
    expect(states()).toEqual(['PAUSING'])

    fake.source('a').state.topic('orders').configs['retention.ms'] = '2000'
    const alters = vi.spyOn(fake.host('b'), 'alterTopicConfigs')
    for (let i = 0; i < 3; i++) {
      fake.advance(1_000)
      await fake.engine.tick()
    }
    expect(states()).toEqual(['PAUSING'])
    expect(alters).not.toHaveBeenCalled()
    release()
    await pause
    await fake.engine.settle()
    expect(states()).toEqual(['PAUSED'])
    expect(destinationRetention()).toBe('1000')
  })

  it('syncs a topic one of whose partitions is still mirroring beside a paused one (a pause whose record could not be written for it)', async () => {
    await mirroring(2)
    // The first state record of the pause fails: that partition stays MIRRORING (its last durable state), the other pauses.
    fake.host('b').failNext('appendMirrorState')
    await fake.engine.pauseTopics('m', ['orders']).catch(() => undefined)
    await fake.engine.settle()
    expect(states().toSorted()).toEqual(['MIRRORING', 'PAUSED'])

    fake.source('a').state.topic('orders').configs['retention.ms'] = '2000'
    await fake.step(1_000)
    await fake.step(1_000)
    expect(states().toSorted()).toEqual(['MIRRORING', 'PAUSED'])
    expect(destinationRetention()).toBe('2000')
  })
  it('#34 one sync both starts the partitions added at the source and copies a config changed with them', async () => {
    await mirroring(1)
    await fake.host('a').createMirrorPartitions('orders', 3)
    fake.source('a').state.topic('orders').configs['retention.ms'] = '2000'
    await fake.step(1_000)
    expect(fake.engine.partitions('m').map((p) => [p.partition, p.state])).toEqual([
      [0, 'MIRRORING'],
      [1, 'MIRRORING'],
      [2, 'MIRRORING'],
    ])
    expect(destinationRetention()).toBe('2000')
    expect([...fake.engine.syncErrors('m')]).toEqual([])
  })
})

describe('the topic config copy', () => {
  it('#32 writes the destination only when a synced config differs: syncs that find them equal alter nothing', async () => {
    await mirroring(1)
    expect(destinationRetention()).toBe('1000')
    const alters = vi.spyOn(fake.host('b'), 'alterTopicConfigs')
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    expect(alters).not.toHaveBeenCalled()
    fake.source('a').state.topic('orders').configs['retention.ms'] = '2000'
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    expect(alters.mock.calls).toEqual([['orders', { 'retention.ms': '2000' }]])
  })
})

describe('the proactive epoch check', () => {
  it('asks only MIRRORING partitions that need a bump: no event for the others, so nothing ignored to log each interval', async () => {
    const log: Array<[string, Record<string, unknown>]> = []
    fake = await createFakeEngine(['a', 'b'], { log: (message, fields) => log.push([message, fields]) })
    fake.source('a').createTopic('orders', 2, { 'retention.ms': '1000' })
    // Partition 1 fails in PREPARING for good measure (retrying): a FAILED partition beside a MIRRORING one.
    const describe = fake.source('a').describePartition.bind(fake.source('a'))
    vi.spyOn(fake.source('a'), 'describePartition').mockImplementation(async (tp) => {
      if (tp.partition === 1) throw new ClusterError('NOT_FOUND', 'orders-1 is not known yet')
      return describe(tp)
    })
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], config: FAST_SYNC })
    for (let i = 0; i < 3; i++) await fake.step()
    expect(states()).toEqual(['MIRRORING', 'FAILED'])
    // The source's partition 1 is many elections ahead of its destination copy: a bump would be due were it mirroring.
    for (let i = 0; i < 10; i++) fake.source('a').electLeader({ topic: 'orders', partition: 1 }, 1)
    log.length = 0
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    expect(states()).toEqual(['MIRRORING', 'FAILED'])
    expect(log.filter(([message]) => message === 'event ignored')).toEqual([])
  })
})

describe('a partition-count increase', () => {
  it('#34 does not ask the destination to create partitions it already has, and starts them', async () => {
    await mirroring(1)
    await fake.host('a').createMirrorPartitions('orders', 2)
    // The destination has the new partition already (created by a sync that stopped before starting it).
    await fake.host('b').createMirrorPartitions('orders', 2)
    const creates = vi.spyOn(fake.host('b'), 'createMirrorPartitions')
    await fake.step(1_000)
    await fake.step()
    expect(creates).not.toHaveBeenCalled()
    expect(states()).toEqual(['MIRRORING', 'MIRRORING'])
  })
})

describe('topic discovery', () => {
  it('a sync that discovers no topic runs no start: the source is not asked for its mirrors each interval', async () => {
    await mirroring(1)
    const listed = vi.spyOn(fake.source('a'), 'listHostedMirrors')
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    expect(listed).not.toHaveBeenCalled()
    expect(states()).toEqual(['MIRRORING'])
  })
})
