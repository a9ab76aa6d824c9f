import { afterEach, describe, expect, it, vi } from 'vitest'
import { ClusterError } from '@/server/cluster/errors'
import { EngineError } from './errors'
import { createFakeEngine, type FakeEngine } from './testing/fake-engine'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * The start's checks of server/engine/preparing/start-checks.ts besides the loop (#19): a topic is started
 * only when the destination's copy has the source's topic id and no other mirror there still mirrors it.
 */

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function twoClusters(): Promise<EngineHarness> {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
  await harness.cluster('a').createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
  await harness.cluster('a').produce('t', { partition: 0, records: [{ value: '1' }] })
  return harness
}

function refusal(code: string, message: string) {
  return (error: unknown) => error instanceof EngineError && error.code === code && error.message === message
}

describe('#39 the start checks of a mirror topic', () => {
  it('refuses (CONFLICT) a topic the destination holds under another topic id, and creates nothing', async () => {
    const h = await twoClusters()
    await h.cluster('b').createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await h.cluster('b').produce('t', { partition: 0, records: [{ value: 'local' }] })
    await expect(h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })).rejects.toSatisfy(
      refusal('CONFLICT', 'topic t exists on b with a different topic id'),
    )
    await h.run(2)
    expect(h.engine.listMirrors()).toEqual([])
    expect((await h.cluster('b').readRecords('t', 0, { limit: 10 })).records.map((record) => record.value)).toEqual(['local'])
  })

  it('refuses a second mirror of a topic another mirror still mirrors to the same destination, and takes it once that one is STOPPED', async () => {
    const h = await twoClusters()
    await h.engine.createMirror({ name: 'first', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(2)
    await expect(h.engine.createMirror({ name: 'second', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })).rejects.toSatisfy(
      refusal('CONFLICT', 'topic t is mirrored by first'),
    )
    expect(h.engine.listMirrors().map((mirror) => mirror.name)).toEqual(['first'])

    expect((await h.engine.awaitOperation((await h.engine.failover('first', { confirm: 'first' })).operation.id)).status).toBe('succeeded')
    await h.engine.createMirror({ name: 'second', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(3)
    expect(h.engine.partitions('second').map((partition) => partition.state)).toEqual(['MIRRORING'])
  })
})

describe('#39 partitions whose start was not saved', () => {
  // Port fakes: the state write of one partition's start fails once, so the partition stays UNKNOWN (never started).
  let fake: FakeEngine | undefined
  afterEach(async () => {
    await fake?.engine.close()
    fake = undefined
  })

  async function startNotSavedFor(partitions: number, unsaved: number): Promise<FakeEngine> {
    fake = await createFakeEngine(['a', 'b'])
    fake.source('a').createTopic('t', partitions)
    for (let partition = 0; partition < partitions; partition++) fake.source('a').produce({ topic: 't', partition }, ['1'])
    const host = fake.host('b')
    const append = host.appendMirrorState.bind(host)
    let failed = false
    vi.spyOn(host, 'appendMirrorState').mockImplementation(async (entries) => {
      if (!failed && entries.some((entry) => entry.key.startsWith('partition/first/') && entry.key.endsWith(`/${unsaved}`) && entry.value?.includes('PREPARING'))) {
        failed = true
        throw new ClusterError('KAFKA_STORAGE_ERROR', 'injected: the start of one partition not saved')
      }
      return append(entries)
    })
    await fake.engine.createMirror({ name: 'first', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    for (let i = 0; i < 3; i++) await fake.step()
    return fake
  }

  it('do not hold the topic against another mirror: a mirror whose start never took effect there does not mirror it', async () => {
    const f = await startNotSavedFor(1, 0)
    expect(f.engine.partitions('first').map((p) => p.state)).toEqual(['UNKNOWN'])
    await f.engine.createMirror({ name: 'second', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await f.engine.settle()
    await f.step()
    expect(f.engine.partitions('second').map((p) => p.state)).toEqual(['MIRRORING'])
    expect(f.host('b').state.log({ topic: 't', partition: 0 }).logEndOffset).toBe(1)
  })

  it("are started again by the mirror's own start, which its mirroring partitions do not refuse", async () => {
    const f = await startNotSavedFor(2, 1)
    expect(f.engine.partitions('first').map((p) => p.state)).toEqual(['MIRRORING', 'UNKNOWN'])
    // A pattern start: the topic's partitions that may start are started, the mirroring one is left as it is.
    await f.engine.startTopics('first', { patterns: ['t'] })
    await f.engine.settle()
    await f.step()
    expect(f.engine.partitions('first').map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING'])
    expect(f.host('b').state.log({ topic: 't', partition: 1 }).logEndOffset).toBe(1)
  })
})
