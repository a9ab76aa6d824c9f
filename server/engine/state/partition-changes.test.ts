import { afterEach, describe, expect, it } from 'vitest'
import { createMirrorPartition } from '@/lib/mirror/partition'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'
import type { PartitionRuntime, PartitionTransitionRecord } from '../types'
import { changePartition, keepSnapshot, keptSnapshot, PartitionChanges, type PartitionField, type PublishedPartitionChange } from './partition-changes'
import { newPartitionRuntime } from './partition-runtime'

const FIELDS: readonly PartitionField[] = [
  'value',
  'failureCode',
  'fetching',
  'retryAt',
  'retryStateEpoch',
  'awaitingConvergence',
  'needsRestore',
  'stateDurable',
  'sourceHighWatermark',
  'oldestUnmirroredTimestamp',
  'lastFetchAt',
  'sourceObservedAt',
  'destinationHighWatermark',
  'destinationLogEndOffset',
  'destinationLeaderEpoch',
  'lastLagEvent',
]

/** A runtime rebuilt from nothing but what was published: the defaults every new runtime starts from, then each change. */
class Shadow {
  readonly fields = new Map<PartitionRuntime, Record<string, unknown>>()
  readonly transitions = new Map<PartitionRuntime, PartitionTransitionRecord[]>()

  apply({ runtime, change }: PublishedPartitionChange): void {
    let fields = this.fields.get(runtime)
    if (!fields) {
      const initial = newPartitionRuntime(new PartitionChanges(), runtime, createMirrorPartition(0)) as unknown as Record<string, unknown>
      this.fields.set(runtime, (fields = Object.fromEntries(FIELDS.map((field) => [field, initial[field]]))))
      this.transitions.set(runtime, [])
    }
    for (const [key, value] of Object.entries(change)) {
      if (key === 'transition') this.transitions.get(runtime)!.push(value as PartitionTransitionRecord)
      else fields[key] = value
    }
  }
}

let fake: FakeEngine
afterEach(async () => fake?.engine.close())

describe('the one write path of a partition runtime', () => {
  it('publishes every change: replaying the published changes rebuilds each runtime field for field', async () => {
    fake = await createFakeEngine(['a', 'b'])
    const shadow = new Shadow()
    const published: PublishedPartitionChange[] = []
    fake.engine.subscribePartitionChanges((change) => {
      published.push(change)
      shadow.apply(change)
    })
    fake.source('a').createTopic('orders', 2)
    fake.source('a').produce({ topic: 'orders', partition: 0 }, ['1', '2'])
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    // A failed fetch (retry scheduled, then due), a pause and a resume: every kind of writer runs.
    fake.source('a').failNextFetch({ topic: 'orders', partition: 1 }, 'LEADER_NOT_AVAILABLE')
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    await fake.engine.pauseTopics('m', ['orders'])
    await fake.step(1_000)
    await fake.engine.resumeTopics('m', ['orders'])
    fake.source('a').produce({ topic: 'orders', partition: 1 }, ['3'])
    for (let i = 0; i < 3; i++) await fake.step(1_000)

    expect(shadow.fields.size).toBe(2)
    const kinds = new Set(published.flatMap(({ change }) => Object.keys(change)))
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['value', 'transition', 'fetching', 'retryAt', 'lastFetchAt', 'destinationLogEndOffset', 'lastLagEvent']))
    for (const [runtime, fields] of shadow.fields) {
      for (const field of FIELDS) expect(fields[field], `${runtime.topic}-${runtime.partition} ${field}`).toEqual(runtime[field])
      expect(shadow.transitions.get(runtime)).toEqual(runtime.transitions)
    }
    expect(fake.engine.partitions('m').map((p) => [p.state, p.destinationLogEndOffset])).toEqual([
      ['MIRRORING', 2],
      ['MIRRORING', 1],
    ])
  })

  it('publishes only the fields that moved, and nothing for a change that moves none', () => {
    const changes = new PartitionChanges()
    const published: PublishedPartitionChange[] = []
    changes.subscribe((change) => published.push(change))
    const runtime = newPartitionRuntime(changes, { mirror: 'm', topic: 't', topicId: 'id', partition: 0 }, createMirrorPartition(0))
    changePartition(runtime, { fetching: true, retryAt: null, lastFetchAt: 5 })
    changePartition(runtime, { fetching: true })
    expect(published.map(({ change }) => change)).toEqual([{ fetching: true, lastFetchAt: 5 }])
    expect(runtime).toMatchObject({ fetching: true, retryAt: null, lastFetchAt: 5 })
  })

  it('makes the kept snapshot stale only through a change of something it shows', () => {
    const runtime = newPartitionRuntime(new PartitionChanges(), { mirror: 'm', topic: 't', topicId: 'id', partition: 0 }, createMirrorPartition(0))
    const snapshot = Object.freeze({}) as never
    const shown: ReadonlySet<PartitionField> = new Set([
      'value',
      'stateDurable',
      'sourceHighWatermark',
      'sourceObservedAt',
      'oldestUnmirroredTimestamp',
      'destinationHighWatermark',
      'destinationLogEndOffset',
      'destinationLeaderEpoch',
      'failureCode',
      'retryAt',
    ])
    const different: Record<PartitionField, unknown> = {
      value: createMirrorPartition(1),
      failureCode: 'FETCH_ERROR',
      fetching: true,
      retryAt: 1,
      retryStateEpoch: 1,
      awaitingConvergence: true,
      needsRestore: true,
      stateDurable: false,
      sourceHighWatermark: 1,
      oldestUnmirroredTimestamp: 1,
      lastFetchAt: 1,
      sourceObservedAt: 1,
      destinationHighWatermark: 1,
      destinationLogEndOffset: 1,
      destinationLeaderEpoch: 1,
      lastLagEvent: [1, 1, null],
    }
    for (const field of FIELDS) {
      const fresh = newPartitionRuntime(new PartitionChanges(), runtime, createMirrorPartition(0))
      keepSnapshot(fresh, snapshot)
      changePartition(fresh, { [field]: different[field] })
      const expected = shown.has(field) ? 'stale' : field === 'lastFetchAt' ? 'lastFetchAt' : 'fresh'
      expect(keptSnapshot(fresh).staleness, field).toBe(expected)
      // lastFetchAt after a shown field keeps it wholly stale.
      if (shown.has(field)) {
        changePartition(fresh, { lastFetchAt: 2 })
        expect(keptSnapshot(fresh).staleness, `${field} then lastFetchAt`).toBe('stale')
      }
    }
  })
})
