import { afterEach, expect, it } from 'vitest'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createEngineHarness, type EngineHarness } from '../testing/harness'

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

it('lag events carry the mirror-wide figures and only the partitions whose lag changed', async () => {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
  const a = harness.cluster('a')
  await a.createTopic({ name: 't', partitions: 4, replicationFactor: 1 })
  // One batch per fetch: records produced as separate batches stay behind for a few rounds.
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'fetch.max.bytes': 1 } })
  const events: Array<Extract<import('../types').EngineEvent, { type: 'lag' }>> = []
  harness.engine.subscribe((event) => {
    if (event.type === 'lag') events.push(event)
  })
  await harness.run(3, 2_000)
  expect(events.length).toBeGreaterThan(1)
  // The first event introduces every partition; a caught-up mirror's later events name none.
  expect(events[0]!.partitions).toHaveLength(4)
  expect(events[0]).toMatchObject({ sampledPartitions: 4, maxOffsetLag: 0, totalOffsetLag: 0 })
  expect(events.at(-1)!.partitions).toEqual([])
  expect(events.at(-1)!.sampledPartitions).toBe(4)

  // Lag on one partition names that partition alone, with the mirror-wide figures, until it clears.
  events.length = 0
  for (let i = 0; i < 6; i++) await a.produce('t', { partition: 2, records: [{ value: `record ${i}` }] })
  await harness.run(10, 2_000)
  expect(new Set(events.flatMap((event) => event.partitions.map((p) => p.partition)))).toEqual(new Set([2]))
  expect(Math.max(...events.map((event) => event.maxOffsetLag))).toBeGreaterThan(1)
  expect(events.some((event) => event.totalOffsetLag === event.maxOffsetLag && event.maxOffsetLag > 0)).toBe(true)
  expect(events.at(-1)).toMatchObject({ maxOffsetLag: 0, partitions: [] })
})

it('a restart restores no lag minute from before the mirror was created (a deleted namesake left its file behind)', async () => {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, archiveLag: true })
  await harness.cluster('a').createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
  const now = harness.clock.now()
  const lagDir = path.join(harness.root, 'lag')
  await mkdir(lagDir, { recursive: true })
  const minutes = Array.from({ length: 30 }, (_, index) => ({ t: now - (31 - index) * 60_000, p: [['t', 0, 900, 60_000]] }))
  await writeFile(path.join(lagDir, 'm.jsonl'), minutes.map((minute) => `${JSON.stringify(minute)}\n`).join(''))
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
  await harness.run(5, 20_000)
  await harness.restart()
  const restored = harness.engine.lagSeries('m')[0]?.points ?? []
  expect(restored.filter(([, offsetLag]) => offsetLag === 900)).toEqual([])
})
