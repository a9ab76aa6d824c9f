import { afterEach, describe, expect, it } from 'vitest'
import { FAILURE_MESSAGES } from '@/lib/mirror/constants'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

/**
 * A fetch answered UNKNOWN_TOPIC_OR_PARTITION (#35), stepped against port fakes with the default metadata refresh
 * (60 s): as Kafka's fetcher, the engine delays the partition (fetch.backoff.ms, 1 s) instead of failing it, and
 * reads the metadata at once; a topic the metadata misses twice in a row is deleted (FAILED non-retryable), one it
 * still lists is back and fetched again after the delay.
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

const GONE = { topic: 'gone', partition: 0 }
const KEPT = { topic: 'kept', partition: 0 }

async function mirroring(): Promise<FakeEngine> {
  fake = await createFakeEngine(['a', 'b'])
  for (const tp of [GONE, KEPT]) {
    fake.source('a').createTopic(tp.topic, 1)
    fake.source('a').produce(tp, ['1', '2'])
  }
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: [GONE.topic, KEPT.topic] })
  for (let i = 0; i < 3; i++) await fake.step()
  expect(shown()).toEqual([
    ['gone', 'MIRRORING', 2],
    ['kept', 'MIRRORING', 2],
  ])
  return fake
}

function shown(): Array<[string, string, number]> {
  return fake.engine.partitions('m').map((p) => [p.topic, p.state, fake.host('b').state.log(p).logEndOffset])
}

function fetchedSince(count: number, topic: string): boolean {
  return fake
    .source('a')
    .fetches.slice(count)
    .some((round) => round.some((request) => request.topic === topic))
}

function statesOf(topic: string) {
  return fake.engine.partitionHistory('m', topic, 0).map((t) => [t.to, t.retryAttempt ?? 0])
}

describe('an unknown topic on fetch (#35)', () => {
  it('#35 delays the partition, never FAILED; the metadata still lists the topic, so it is fetched again after fetch.backoff.ms', async () => {
    await mirroring()
    fake.source('a').failNextFetch(GONE, 'UNKNOWN_TOPIC_OR_PARTITION')
    await fake.step()
    fake.source('a').produce(GONE, ['3'])
    fake.source('a').produce(KEPT, ['3'])
    const rounds = fake.source('a').fetches.length
    // Within the second the partition sits out every round; the other topic goes on.
    for (let i = 0; i < 8; i++) await fake.step()
    expect(fetchedSince(rounds, 'gone')).toBe(false)
    expect(shown()).toEqual([
      ['gone', 'MIRRORING', 2],
      ['kept', 'MIRRORING', 3],
    ])
    await fake.step(200)
    await fake.step()
    expect(shown()).toEqual([
      ['gone', 'MIRRORING', 3],
      ['kept', 'MIRRORING', 3],
    ])
    expect(fake.engine.partitions('m')[0]).toMatchObject({ error: null, retryAttempt: 0, offsetLag: 0 })
    expect(statesOf('gone')).toEqual([
      ['PREPARING', 0],
      ['MIRRORING', 0],
    ])
  })

  it('#35 a deleted topic is FAILED non-retryable once the metadata misses it twice, about a second after the first miss, with no retryable FAILED before', async () => {
    await mirroring()
    fake.source('a').state.topics.delete('gone')
    await fake.step()
    // Delayed, not failed: the first metadata read misses it once.
    await fake.step()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', error: null, retryAttempt: 0 })
    for (let i = 0; i < 10; i++) await fake.step()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: -1, error: FAILURE_MESSAGES.sourceTopicDeleted, failureCode: 'SOURCE_TOPIC_DELETED', nextRetryAt: null })
    expect(statesOf('gone')).toEqual([
      ['PREPARING', 0],
      ['MIRRORING', 0],
      ['FAILED', -1],
    ])
    expect(fake.engine.partitions('m')[1]).toMatchObject({ topic: 'kept', state: 'MIRRORING', error: null })
  })
})
