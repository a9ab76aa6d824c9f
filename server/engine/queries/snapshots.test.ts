import { afterEach, expect, it } from 'vitest'
import { templateOf } from '@/server/util/json-template'
import { createEngineHarness, type EngineHarness } from '../testing/harness'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

it('hands out the same frozen snapshot while a partition reads the same, and a new one when anything moves', async () => {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
  const a = harness.cluster('a')
  await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
  await harness.run(3, 2_000)
  const first = harness.engine.partitions('m')
  expect(first.map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING'])
  expect(Object.isFrozen(first[0])).toBe(true)
  // Nothing ran in between: the very same objects.
  const again = harness.engine.partitions('m')
  expect(again[0]).toBe(first[0])
  expect(again[1]).toBe(first[1])

  await a.produce('t', { partition: 1, records: [{ value: 'x' }, { value: 'y' }] })
  await harness.run(3, 2_000)
  const moved = harness.engine.partitions('m')
  expect(moved[1]).not.toBe(first[1])
  expect(moved[1]).toMatchObject({ sourceHighWatermark: 2, destinationHighWatermark: 2, destinationLogEndOffset: 2, offsetLag: 0 })
  expect(Object.isFrozen(moved[1]!.lastMirrorPosition)).toBe(true)
  // Each round is a fetch of both partitions, so the quiet one moved too (lastFetchAt), and says so.
  expect(moved[0]!.lastFetchAt).toBeGreaterThan(first[0]!.lastFetchAt!)
  // It moved in lastFetchAt alone, so its JSON template is the last one's; the partition that mirrored got a new one.
  expect(templateOf(moved[0]!)).toBe(templateOf(first[0]!))
  expect(templateOf(moved[1]!)).not.toBe(templateOf(first[1]!))

  harness.engine.pauseTopics('m', ['t'])
  await harness.run(2, 2_000)
  const paused = harness.engine.partitions('m')
  expect(paused.map((p) => p.state)).toEqual(['PAUSED', 'PAUSED'])
  expect(paused.map((p) => p.previousState)).toEqual(['PAUSING', 'PAUSING'])
  expect(harness.engine.partitions('m')[0]).toBe(paused[0])
})
