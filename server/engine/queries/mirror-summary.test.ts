import { afterEach, expect, it } from 'vitest'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

/**
 * The mirror summary's lag figures, stepped one fetch round at a time against the port fakes: a MIRRORING
 * partition whose source has not answered a fetch yet has no known lag, so neither has the mirror. Counted as
 * 0, a mirror that had copied nothing read "caught up" (docs/api.md's journey failed over on it under load).
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

it('has no lag figures until every MIRRORING partition has a fetch answered, then the real ones', async () => {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 2)
  fake.source('a').produce({ topic: 'orders', partition: 0 }, ['A', 'B', 'C'])
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()

  // PREPARING is done, no fetch round has run: MIRRORING with nothing copied.
  expect(fake.engine.partitions('m').map((p) => [p.state, p.destinationLogEndOffset, p.offsetLag])).toEqual([
    ['MIRRORING', 0, null],
    ['MIRRORING', 0, null],
  ])
  expect(fake.engine.mirrorSummary('m')).toMatchObject({ partitionsByState: { MIRRORING: 2 }, maxOffsetLag: null, totalOffsetLag: null, maxTimeLagMs: null })

  await fake.step()
  expect(fake.engine.partitions('m').map((p) => [p.state, p.destinationLogEndOffset, p.offsetLag])).toEqual([
    ['MIRRORING', 3, 0],
    ['MIRRORING', 0, 0],
  ])
  expect(fake.engine.mirrorSummary('m')).toMatchObject({ maxOffsetLag: 0, totalOffsetLag: 0, maxTimeLagMs: 0 })
})
