import { afterEach, expect, it } from 'vitest'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

/**
 * Retries wake through the partition timer, against the fake engine's manual clock (the injected timer):
 * a FAILED partition is retried when its backoff is due, not before, and not by a sweep of every tick.
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

it('retries a FAILED partition when its backoff is due on the injected clock, and not a tick before', async () => {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 2)
  await fake.engine.createMirror({
    name: 'm',
    sourceCluster: 'a',
    destinationCluster: 'b',
    topics: ['orders'],
    // random() is 0.5 in the fake engine: the first retry waits half the initial backoff, 5,000 ms.
    config: { 'mirror.failed.retry.initial.backoff.ms': 10_000, 'mirror.failed.retry.max.backoff.ms': 60_000 },
  })
  await fake.engine.settle()
  await fake.step()
  fake.source('a').failNextFetch({ topic: 'orders', partition: 1 }, 'LEADER_NOT_AVAILABLE')
  await fake.step()
  const failedAt = fake.now()
  expect(fake.engine.partitions('m').map((p) => p.state)).toEqual(['MIRRORING', 'FAILED'])
  while (fake.now() + 100 < failedAt + 5_000) {
    await fake.step(100)
    expect(fake.engine.partitions('m')[1]!.state, `at +${fake.now() - failedAt} ms`).toBe('FAILED')
  }
  await fake.step(100)
  await fake.step(100)
  expect(fake.engine.partitions('m').map((p) => [p.state, p.retryAttempt])).toEqual([
    ['MIRRORING', 0],
    ['MIRRORING', 0],
  ])
})
