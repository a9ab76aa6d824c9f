import { afterEach, describe, expect, it } from 'vitest'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from '../testing/harness'

// The fetch ahead (fetch-ahead.ts) in the server's background loop, on embedded clusters: the source's plain fetch
// with no wait is the fetch ahead (the round's own fetch is a held one through the fetch session), and it is held at
// the source until the test lets it answer, so a command can come between its request and its answer.

let harness: EngineHarness | undefined
afterEach(async () => harness?.cleanup())

/** The source's fetches with no wait held until released; resolves `requested` with the first one's offsets. */
function holdFetchesAhead(source: EmbeddedCluster) {
  const fetch = source.fetch.bind(source)
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let requested!: (offsets: number[]) => void
  const firstRequest = new Promise<number[]>((resolve) => (requested = resolve))
  source.fetch = async (requests, options) => {
    if ((options.maxWaitMs ?? 0) === 0) {
      requested(requests.map((request) => request.fetchOffset))
      await released
    }
    return fetch(requests, options)
  }
  return { firstRequest, release }
}

async function mirroringWithBacklog(batches: number): Promise<EngineHarness> {
  const h = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, fetchMaxWaitMs: 50 })
  const a = h.cluster('a')
  await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
  // One batch a fetch (fetch.max.bytes 1: the first batch still comes whole), so there is always one more to fetch ahead.
  await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'fetch.max.bytes': 1 } })
  await h.run(4)
  expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING' })
  for (let i = 0; i < batches; i++) await a.produce('t', { partition: 0, records: [{ value: `r${i}` }] })
  return h
}

describe('fetching ahead while appending', () => {
  it('drains a backlog in order, each record once', async () => {
    harness = await mirroringWithBacklog(30)
    harness.engine.startBackground(3_600_000)
    const b = harness.cluster('b')
    while ((await b.describePartition({ topic: 't', partition: 0 })).highWatermark < 30) await new Promise((resolve) => setTimeout(resolve, 10))
    expect((await b.readRecords('t', 0, { limit: 100 })).records.map((r) => r.value)).toEqual(Array.from({ length: 30 }, (_, i) => `r${i}`))
  })

  it('a pause while a fetch ahead is at the source: its answer is dropped, nothing is appended after the pause', async () => {
    harness = await mirroringWithBacklog(3)
    const gate = holdFetchesAhead(harness.cluster('a'))
    harness.engine.startBackground(3_600_000)
    // The round fetched r0 and asks for r1 while appending r0.
    expect(await gate.firstRequest).toEqual([1])
    await harness.engine.pauseTopics('m')
    await harness.engine.settle()
    expect(harness.engine.partitions('m')[0]!.state).not.toBe('MIRRORING')
    const b = harness.cluster('b')
    const atPause = (await b.describePartition({ topic: 't', partition: 0 })).logEndOffset
    expect(atPause).toBe(1)
    // The fetch ahead answers r1 now; closing the engine waits for the round it belongs to.
    gate.release()
    await harness.engine.close()
    expect((await b.describePartition({ topic: 't', partition: 0 })).logEndOffset).toBe(atPause)
    expect((await b.readRecords('t', 0, { limit: 100 })).records.map((r) => r.value)).toEqual(['r0'])
  })
})
