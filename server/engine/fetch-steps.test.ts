import { afterEach, describe, expect, it } from 'vitest'
import { splitBatches } from '@/lib/log/record-batch'
import { createFakeEngine, type FakeEngine } from './testing/fake-engine'

/**
 * The engine stepped one tick (one fetch round) at a time against port fakes, as Kafka's
 * AbstractFetcherThreadTest steps doWork() against a MockLeaderEndPoint.
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

const P0 = { topic: 'orders', partition: 0 }
const P1 = { topic: 'orders', partition: 1 }

async function mirroring(partitions = 2): Promise<FakeEngine> {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', partitions)
  fake.source('a').produce(P0, ['1', '2'])
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()
  return fake
}

function states(): Array<[number, string]> {
  return fake.engine.partitions('m').map((p) => [p.partition, p.state])
}

function lastFetchOf(partition: number) {
  return fake.source('a').fetches.at(-1)?.find((request) => request.partition === partition)
}

describe('fetcher, one response at a time', () => {
  it('fetches from the destination log end with the epoch of the last batch it holds', async () => {
    await mirroring()
    expect(states()).toEqual([
      [0, 'MIRRORING'],
      [1, 'MIRRORING'],
    ])
    await fake.step()
    expect(lastFetchOf(0)).toMatchObject({ fetchOffset: 0, lastFetchedEpoch: -1 })
    expect(fake.host('b').state.log(P0).logEndOffset).toBe(2)
    await fake.step()
    expect(lastFetchOf(0)).toMatchObject({ fetchOffset: 2, lastFetchedEpoch: 0 })
    expect(fake.engine.partitions('m')[0]).toMatchObject({ offsetLag: 0, destinationHighWatermark: 2, sourceHighWatermark: 2 })
  })

  it('keeps offsets and epochs of the source batches byte for byte', async () => {
    await mirroring()
    fake.source('a').electLeader(P0, 2)
    fake.source('a').produce(P0, ['3'])
    for (let i = 0; i < 4; i++) await fake.step()
    const source = fake.source('a').state.log(P0).read(0, 1 << 20)
    const destination = fake.host('b').state.log(P0).read(0, 1 << 20)
    expect(destination).toEqual(source)
    expect(splitBatches(destination).map(({ header }) => [header.baseOffset, header.partitionLeaderEpoch])).toEqual([
      [0, 0],
      [2, 1],
    ])
  })

  it('fails only the partition whose response is an error, and a later fetch clears it', async () => {
    await mirroring()
    await fake.step()
    fake.source('a').failNextFetch(P1, 'LEADER_NOT_AVAILABLE')
    await fake.step()
    expect(states()).toEqual([
      [0, 'MIRRORING'],
      [1, 'FAILED'],
    ])
    expect(fake.engine.partitions('m')[1]).toMatchObject({ retryAttempt: 1, error: expect.stringContaining('LEADER_NOT_AVAILABLE') })
    // The retry backoff (100 ms initial, jitter fixed by random 0.5) passes; the next round fetches it again.
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    expect(states()).toEqual([
      [0, 'MIRRORING'],
      [1, 'MIRRORING'],
    ])
    expect(fake.engine.partitions('m')[1]).toMatchObject({ retryAttempt: 0, error: null })
  })

  it('fails every partition while the source is unreachable and converges once it is back', async () => {
    await mirroring()
    await fake.step()
    fake.source('a').unreachable = true
    await fake.step()
    expect(states()).toEqual([
      [0, 'FAILED'],
      [1, 'FAILED'],
    ])
    fake.source('a').unreachable = false
    fake.source('a').produce(P0, ['3'])
    for (let i = 0; i < 4; i++) await fake.step(1_000)
    expect(states()).toEqual([
      [0, 'MIRRORING'],
      [1, 'MIRRORING'],
    ])
    expect(fake.host('b').state.log(P0).logEndOffset).toBe(3)
  })

  it('drops nothing and appends nothing for a partition paused while its fetch was answered', async () => {
    await mirroring()
    await fake.step()
    await fake.engine.pauseTopics('m', ['orders'])
    fake.source('a').produce(P0, ['3'])
    const fetchesBefore = fake.source('a').fetches.length
    await fake.step()
    expect(fake.source('a').fetches.length).toBe(fetchesBefore)
    expect(fake.host('b').state.log(P0).logEndOffset).toBe(2)
  })
})

describe('names', () => {
  it('refuses the names "." and ".." for mirrors and topics as the cluster and the failback planner do', async () => {
    fake = await createFakeEngine(['a', 'b'])
    for (const name of ['.', '..']) {
      await expect(fake.engine.createMirror({ name, sourceCluster: 'a', destinationCluster: 'b' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
      await expect(fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: [name] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    }
    expect(fake.engine.listMirrors()).toEqual([])
  })
})
