import { afterEach, expect, it } from 'vitest'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

let fake: FakeEngine
afterEach(async () => fake?.engine.close())

const P1 = { topic: 'orders', partition: 1 }

it('pauses a partition that failed while mirroring, as the transition table allows (FAILED → PAUSING → PAUSED)', async () => {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 2)
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()
  await fake.step()
  fake.source('a').failNextFetch(P1, 'LEADER_NOT_AVAILABLE')
  await fake.step()
  expect(fake.engine.partitions('m').map((p) => [p.partition, p.state, p.previousState])).toEqual([
    [0, 'MIRRORING', 'PREPARING'],
    [1, 'FAILED', 'MIRRORING'],
  ])
  const result = await fake.engine.pauseTopics('m', ['orders'])
  await fake.engine.settle()
  expect(result).toEqual({ topics: ['orders'] })
  expect(fake.engine.partitions('m').map((p) => [p.partition, p.state])).toEqual([
    [0, 'PAUSED'],
    [1, 'PAUSED'],
  ])
  // The retry the failure had scheduled does not take it out of PAUSED.
  for (let i = 0; i < 3; i++) await fake.step(1_000)
  expect(fake.engine.partitions('m').map((p) => p.state)).toEqual(['PAUSED', 'PAUSED'])
  expect(fake.engine.partitionHistory('m', 'orders', 1).map((t) => `${t.from}→${t.to}`)).toEqual(['UNKNOWN→PREPARING', 'PREPARING→MIRRORING', 'MIRRORING→FAILED', 'FAILED→PAUSING', 'PAUSING→PAUSED'])
})
