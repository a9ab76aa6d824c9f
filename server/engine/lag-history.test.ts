import { afterEach, expect, it } from 'vitest'
import { createEngineHarness, type EngineHarness } from './testing/harness'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

it('lag is sampled per partition, and its per-minute worst survives a restart', async () => {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, archiveLag: true })
  const a = harness.cluster('a')
  await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
  for (let i = 0; i < 40; i++) await a.produce('t', { partition: 0, records: [{ value: `record ${i}` }] })
  // One batch per fetch keeps the mirror behind for a while.
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'fetch.max.bytes': 1 } })
  await harness.run(12, 20_000)
  const live = harness.engine.lagSeries('m')[0]!.points
  expect(live.length).toBeGreaterThan(5)
  expect(Math.max(...live.map(([, offsetLag]) => offsetLag))).toBeGreaterThan(20)
  await harness.run(40, 20_000)
  expect(harness.engine.partitions('m')[0]!.offsetLag).toBe(0)

  await harness.restart()
  const restored = harness.engine.lagSeries('m')[0]!.points
  expect(Math.max(...restored.map(([, offsetLag]) => offsetLag))).toBeGreaterThan(20)
})
