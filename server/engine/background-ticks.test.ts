import { afterEach, describe, expect, it } from 'vitest'
import { createEngineHarness, type EngineHarness } from './testing/harness'

// The server's background loop (MirrorEngine.startBackground): a round that mirrored records is followed at once,
// the interval only paces quiet rounds. Embedded clusters with replication factor 1: a produce is readable at once,
// with no cluster tick between the engine's rounds.

let harness: EngineHarness | undefined
afterEach(async () => harness?.cleanup())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('background ticks', () => {
  it('a backlog of many rounds is drained without waiting out the tick interval between rounds', async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    // One record a batch and one batch a round (fetch.max.bytes 1: the first batch still comes whole).
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'fetch.max.bytes': 1 } })
    await harness.run(4)
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING' })
    for (let i = 0; i < 20; i++) await a.produce('t', { partition: 0, records: [{ value: `r${i}` }] })
    // An hour between ticks: without the immediate follow-up the backlog would take twenty hours.
    harness.engine.startBackground(3_600_000)
    const b = harness.cluster('b')
    while ((await b.describePartition({ topic: 't', partition: 0 })).highWatermark < 20) await sleep(10)
    expect((await b.readRecords('t', 0, { limit: 100 })).records.map((r) => r.value)).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`))
  })

  it('a round that caught the mirror up waits the interval: a trickle of writes does not keep the loop spinning', async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(4)
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING' })
    await a.produce('t', { partition: 0, records: [{ value: 'one' }] })
    const engine = harness.engine as unknown as { tick: () => Promise<void> }
    const tick = engine.tick.bind(engine)
    let ticks = 0
    engine.tick = () => {
      ticks += 1
      return tick()
    }
    harness.engine.startBackground(3_600_000)
    const b = harness.cluster('b')
    while ((await b.describePartition({ topic: 't', partition: 0 })).highWatermark < 1) await sleep(10)
    // Long enough for a round scheduled at once to have run several times over.
    await sleep(200)
    expect(ticks).toBe(1)
  })
})
