import { afterEach, describe, expect, it } from 'vitest'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import type { ReplicaLogState } from '@/server/cluster/ports'
import { createFakeEngine, type FakeEngine } from './testing/fake-engine'

/**
 * ULE recovery (#38) stepped against port fakes whose destination reports a follower as the test sets it: the
 * fake's ISR always lists every replica, so only each replica's own log end offset and epoch can hold the
 * partition in ULE_LOG_TRUNCATION.
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

const TP = { topic: 'orders', partition: 0 }
const follower = (state: Omit<ReplicaLogState, 'brokerId'>): ReplicaLogState[] => [{ brokerId: 2, ...state }]

/** The engine's log lines, as an operator reads them. */
let logged: Array<{ message: string; fields: Record<string, unknown> }> = []

async function divergedWhileFollowerIs(state: Omit<ReplicaLogState, 'brokerId'>): Promise<void> {
  logged = []
  fake = await createFakeEngine(['a', 'b'], { log: (message, fields) => logged.push({ message, fields }) })
  fake.source('a').createTopic('orders', 1)
  for (const value of ['1', '2', '3']) fake.source('a').produce(TP, [value])
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  await fake.host('b').alterTopicConfigs('orders', { [MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION]: 'true' })
  for (let i = 0; i < 3; i++) await fake.step()
  expect(fake.host('b').state.log(TP).logEndOffset).toBe(3)
  fake.host('b').followers.set('orders-0', follower(state))
  // An unclean election at the source: the last record is gone, a new one is written in a new epoch.
  fake.source('a').state.log(TP).truncateTo(2)
  fake.source('a').electLeader(TP, 2)
  fake.source('a').produce(TP, ['3-new'])
  for (let i = 0; i < 5; i++) await fake.step()
}

function shown() {
  const [partition] = fake.engine.partitions('m')
  return { state: partition!.state, destinationLogEndOffset: fake.host('b').state.log(TP).logEndOffset }
}

describe('ULE recovery waits for each replica (#38)', () => {
  for (const [name, state] of [
    ['offline', { online: false, logEndOffset: null, latestEpoch: null }],
    ['still holding the offsets the leader truncated', { online: true, logEndOffset: 3, latestEpoch: 0 }],
    ['at the truncation point in another epoch', { online: true, logEndOffset: 2, latestEpoch: 7 }],
    ['behind the truncation point', { online: true, logEndOffset: 1, latestEpoch: 0 }],
  ] as const) {
    it(`#38 stays in ULE_LOG_TRUNCATION while a follower is ${name}, and mirrors once it holds the truncated log`, async () => {
      await divergedWhileFollowerIs(state)
      expect(shown()).toEqual({ state: 'ULE_LOG_TRUNCATION', destinationLogEndOffset: 2 })
      fake.host('b').followers.set('orders-0', follower({ online: true, logEndOffset: 2, latestEpoch: 0 }))
      for (let i = 0; i < 3; i++) await fake.step()
      expect(shown()).toEqual({ state: 'MIRRORING', destinationLogEndOffset: 3 })
      const [, , entered, resumed] = fake.engine.partitionHistory('m', 'orders', 0)
      expect(entered).toMatchObject({ from: 'MIRRORING', to: 'ULE_LOG_TRUNCATION' })
      expect(resumed).toMatchObject({ from: 'ULE_LOG_TRUNCATION', to: 'MIRRORING', reason: 'every replica holds the truncated log (offset 2, epoch 0)' })
    })
  }

  it('#38 says in the log what it cut and, once per wait, which replicas it waits for; a later recovery says it again', async () => {
    await divergedWhileFollowerIs({ online: false, logEndOffset: null, latestEpoch: null })
    for (let i = 0; i < 5; i++) await fake.step()
    const lines = (message: string) => logged.filter((line) => line.message === message).map((line) => line.fields)
    expect(lines('truncated')).toContainEqual({ mirror: 'm', topic: 'orders', partition: 0, from: 3, to: 2, removed: 1 })
    expect(lines('waiting for replicas')).toEqual([{ mirror: 'm', topic: 'orders', partition: 0, waitingFor: 'broker 2 offline' }])
    fake.host('b').followers.set('orders-0', follower({ online: true, logEndOffset: 2, latestEpoch: 0 }))
    for (let i = 0; i < 3; i++) await fake.step()
    expect(shown()).toEqual({ state: 'MIRRORING', destinationLogEndOffset: 3 })
    // A second unclean election: the follower still holds what the leader cuts this time.
    fake.host('b').followers.set('orders-0', follower({ online: true, logEndOffset: 3, latestEpoch: 1 }))
    fake.source('a').state.log(TP).truncateTo(2)
    fake.source('a').electLeader(TP, 1)
    fake.source('a').produce(TP, ['3-newer'])
    for (let i = 0; i < 5; i++) await fake.step()
    expect(shown().state).toBe('ULE_LOG_TRUNCATION')
    expect(lines('waiting for replicas')).toEqual([
      { mirror: 'm', topic: 'orders', partition: 0, waitingFor: 'broker 2 offline' },
      { mirror: 'm', topic: 'orders', partition: 0, waitingFor: 'broker 2 still holding offsets past the truncation point' },
    ])
  })
})
