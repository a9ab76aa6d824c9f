import { afterEach, expect, it } from 'vitest'
import type { EngineEvent, PartitionRuntime } from './types'
import { createFakeEngine, type FakeEngine } from './testing/fake-engine'

/** A FAILED partition keeps why as a code (lib/mirror/failure-code.ts) next to its message, durably. */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

it('keeps the failure code of a FAILED partition with its message, persists it, and clears it with the failure', async () => {
  fake = await createFakeEngine(['a', 'b'])
  const runtimes = new Map<number, PartitionRuntime>()
  fake.engine.subscribePartitionChanges(({ runtime }) => runtimes.set(runtime.partition, runtime))
  fake.source('a').createTopic('orders', 1)
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()
  await fake.step()
  const events: EngineEvent[] = []
  fake.engine.subscribe((event) => events.push(event))
  fake.source('a').failNextFetch({ topic: 'orders', partition: 0 }, 'LEADER_NOT_AVAILABLE')
  await fake.step()

  const [failed] = fake.engine.partitions('m')
  // The transition's event carries the row's failure details: a table patched from it alone says why and when.
  expect(events).toContainEqual(
    expect.objectContaining({ type: 'partition', to: 'FAILED', failureCode: 'FETCH_ERROR', error: failed!.error, retryAttempt: 1, nextRetryAt: failed!.nextRetryAt }),
  )
  expect(failed!.nextRetryAt).toEqual(expect.any(Number))
  expect(failed).toMatchObject({ state: 'FAILED', retryAttempt: 1 })
  // The API's message is as before: the source's own Kafka code leads it.
  expect(failed!.error).toMatch(/^LEADER_NOT_AVAILABLE: /)
  expect(runtimes.get(0)!.failureCode).toBe('FETCH_ERROR')
  const stored = (await fake.host('b').readMirrorState()).find((record) => record.key.startsWith('partition/m/'))
  expect(JSON.parse(stored!.value!)).toMatchObject({ topic: 'orders', partition: 0, state: 'FAILED', failureCode: 'FETCH_ERROR' })

  for (let i = 0; i < 5; i++) await fake.step(1_000)
  expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', error: null, retryAttempt: 0 })
  expect(runtimes.get(0)!.failureCode).toBeNull()
  expect(events.filter((event) => event.type === 'partition').at(-1)).toMatchObject({ to: 'MIRRORING', failureCode: null, nextRetryAt: null })
})

it('names the table failure events by their code, not by their message', async () => {
  fake = await createFakeEngine(['a', 'b'])
  const runtimes = new Map<number, PartitionRuntime>()
  fake.engine.subscribePartitionChanges(({ runtime }) => runtimes.set(runtime.partition, runtime))
  fake.source('a').createTopic('orders', 1)
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.engine.settle()
  await fake.step()
  fake.source('a').id = 'another-cluster'
  await fake.step()
  expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: -1 })
  expect(runtimes.get(0)!.failureCode).toBe('SOURCE_CLUSTER_ID_CHANGED')
})
