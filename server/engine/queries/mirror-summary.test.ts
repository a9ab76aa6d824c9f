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

it('never reads caught up once the source is silent: lower bounds that grow, as of the last fetch, and back to exact when it answers', async () => {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 2)
  fake.source('a').produce({ topic: 'orders', partition: 0 }, ['A', 'B', 'C'])
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()
  await fake.step()
  const lastFetchAt = fake.engine.partitions('m')[0]!.lastFetchAt!
  expect(fake.engine.mirrorSummary('m')).toMatchObject({ maxOffsetLag: 0, lagKnown: true })

  fake.source('a').unreachable = true
  await fake.step()
  expect(fake.engine.partitions('m').map((p) => p.state)).toEqual(['FAILED', 'FAILED'])
  expect(fake.engine.partitions('m')[0]).toMatchObject({ failureCode: 'SOURCE_UNREACHABLE', lagKnown: false, lagAsOf: lastFetchAt, offsetLag: 0, timeLagFrom: lastFetchAt })
  expect(fake.engine.partitions('m')[0]!.nextRetryAt).toBeGreaterThan(fake.now())
  // The lag sampler runs once a second.
  await fake.step(1_000)
  fake.advance(30_000)
  const silent = fake.engine.mirrorSummary('m')
  expect(silent).toMatchObject({ partitionsByState: { FAILED: 2 }, maxOffsetLag: 0, lagKnown: false, lagAsOf: lastFetchAt })
  expect(silent.maxTimeLagMs).toBe(fake.now() - lastFetchAt)
  fake.advance(10_000)
  expect(fake.engine.mirrorSummary('m').maxTimeLagMs).toBe(fake.now() - lastFetchAt)

  fake.source('a').unreachable = false
  for (let i = 0; i < 40 && fake.engine.partitions('m').some((p) => p.state !== 'MIRRORING' || !p.lagKnown); i++) await fake.step(1_000)
  expect(fake.engine.mirrorSummary('m')).toMatchObject({ maxOffsetLag: 0, maxTimeLagMs: 0, lagKnown: true })
  // The chart's hatched band: one span of unknown lag, from the last fetch before the cut, closed once all answered.
  const [span, ...more] = fake.engine.lagUnknownSpans('m', 0)
  expect(more).toEqual([])
  expect(span!.from).toBe(lastFetchAt)
  expect(span!.to).not.toBeNull()
})

it('has no lag figures for a mirror whose partitions all stopped, rather than a 0', async () => {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 1)
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()
  await fake.step()
  await fake.engine.failover('m', { confirm: 'm' })
  for (let i = 0; i < 20 && fake.engine.partitions('m').some((p) => p.state !== 'STOPPED'); i++) await fake.step()
  expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'STOPPED', offsetLag: null, lagKnown: false, lagAsOf: null })
  expect(fake.engine.mirrorSummary('m')).toMatchObject({ maxOffsetLag: null, totalOffsetLag: null, maxTimeLagMs: null, lagKnown: false })
})

it('says what flows beside the lag: records and bytes per second appended, fetches made', async () => {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 1)
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()
  for (let second = 0; second < 5; second++) {
    fake.source('a').produce({ topic: 'orders', partition: 0 }, Array.from({ length: 20 }, (_, index) => `r${second}-${index}`))
    await fake.step(1_000)
  }
  const { throughput } = fake.engine.mirrorSummary('m')
  expect(throughput.recordsPerSecond).toBeGreaterThan(10)
  expect(throughput.bytesPerSecond).toBeGreaterThan(0)
  expect(throughput.fetches).toBeGreaterThan(0)
  expect(throughput.throttleUse).toBeNull()
  expect(fake.engine.throughputHistory('m').length).toBeGreaterThan(2)
})
