import { afterEach, describe, expect, it } from 'vitest'
import { EngineError } from './errors'
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
