import { afterEach, describe, expect, it } from 'vitest'
import type { FetchPartitionRequest, FetchPartitionResult } from '../ports'
import { SESSION_IDLE_EVICTION_MS, SESSION_SWEEP_INTERVAL_MS } from './fetch-session'
import { expectErrorCode, openTestCluster, type TestCluster } from './testing'

let t: TestCluster

afterEach(async () => {
  await t?.cleanup()
})

const MIB = 1024 * 1024
const topic = 'orders'

function request(partition: number, fetchOffset = 0): FetchPartitionRequest {
  return { topic, partition, fetchOffset, lastFetchedEpoch: -1, maxBytes: MIB }
}

function named(results: FetchPartitionResult[]): string[] {
  return results.map((result) => `${result.topic}-${result.partition}${result.ok ? `@${result.highWatermark}` : `:${result.error.code}`}`)
}

async function produce(partition: number, count = 1): Promise<void> {
  await t.cluster.produce(topic, { partition, idempotent: false, records: Array.from({ length: count }, (_, index) => ({ value: `v${index}` })) })
}

async function openWithPartitions(count: number) {
  t = await openTestCluster({ brokers: 1 })
  await t.cluster.createTopic({ name: topic, partitions: count })
  return t.cluster.openFetchSession()
}

describe('EmbeddedFetchSession (KIP-227 incremental fetch)', () => {
  it('answers every partition a call names, then only those that changed', async () => {
    const session = await openWithPartitions(3)
    await produce(1, 2)
    const first = await session.fetch({ partitions: [request(0), request(1), request(2)], forget: [] }, { maxBytes: MIB })
    expect(named(first)).toEqual(['orders-0@0', 'orders-1@2', 'orders-2@0'])
    // Nothing moved, and partition 1's records were answered already for the same request.
    expect(await session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB })).toEqual([])
    await produce(2)
    expect(named(await session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB }))).toEqual(['orders-2@1'])
    // The fetcher moves partition 1 past its records: named, it is answered (empty, at its high watermark).
    const moved = await session.fetch({ partitions: [request(1, 2)], forget: [] }, { maxBytes: MIB })
    expect(named(moved)).toEqual(['orders-1@2'])
    expect(moved[0]!.ok && moved[0]!.records.byteLength).toBe(0)
  })

  it('holds a quiet call until an append to one of its partitions, and answers only that partition', async () => {
    const session = await openWithPartitions(20)
    const all = Array.from({ length: 20 }, (_, partition) => request(partition))
    expect(await session.fetch({ partitions: all, forget: [] }, { maxBytes: MIB })).toHaveLength(20)
    const started = Date.now()
    const held = session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB, maxWaitMs: 30_000 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    await produce(12, 3)
    expect(named(await held)).toEqual(['orders-12@3'])
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  it('ends a held call with nothing when the wait ends or the signal aborts', async () => {
    const session = await openWithPartitions(1)
    await session.fetch({ partitions: [request(0)], forget: [] }, { maxBytes: MIB })
    expect(await session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB, maxWaitMs: 30 })).toEqual([])
    const controller = new AbortController()
    const held = session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB, maxWaitMs: 30_000, signal: controller.signal })
    setTimeout(() => controller.abort(), 30)
    expect(await held).toEqual([])
  })

  it('no longer answers or wakes for a forgotten partition', async () => {
    const session = await openWithPartitions(2)
    await session.fetch({ partitions: [request(0), request(1)], forget: [] }, { maxBytes: MIB })
    await session.fetch({ partitions: [], forget: [{ topic, partition: 0 }] }, { maxBytes: MIB })
    await produce(0)
    expect(await session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB, maxWaitMs: 30 })).toEqual([])
  })

  it('answers a log start offset moved without an append at its next sweep', async () => {
    const session = await openWithPartitions(2)
    await produce(0, 4)
    await session.fetch({ partitions: [request(0, 4), request(1)], forget: [] }, { maxBytes: MIB })
    await t.cluster.deleteRecords({ topic, partition: 0 }, 2)
    expect(await session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB })).toEqual([])
    t.clock.advance(SESSION_SWEEP_INTERVAL_MS)
    const swept = await session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB })
    expect(swept.map((result) => result.ok && [result.partition, result.logStartOffset])).toEqual([[0, 2]])
  })

  it('answers a partition of a deleted topic with its error', async () => {
    const session = await openWithPartitions(1)
    await session.fetch({ partitions: [request(0)], forget: [] }, { maxBytes: MIB })
    await t.cluster.deleteTopic(topic)
    expect(named(await session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB }))).toEqual(['orders-0:UNKNOWN_TOPIC_OR_PARTITION'])
  })

  it('refuses bad input and calls on a closed session; the cluster closes and evicts sessions', async () => {
    const session = await openWithPartitions(1)
    await expectErrorCode(session.fetch({ partitions: [{ ...request(0), fetchOffset: -1 }], forget: [] }, { maxBytes: MIB }), 'VALIDATION_FAILED')
    await expectErrorCode(session.fetch({ partitions: [], forget: [{ topic, partition: -1 }] }, { maxBytes: MIB }), 'VALIDATION_FAILED')
    await expectErrorCode(session.fetch({ partitions: [], forget: [] }, { maxBytes: 0 }), 'VALIDATION_FAILED')
    session.close()
    expect(session.isOpen).toBe(false)
    await expectErrorCode(session.fetch({ partitions: [], forget: [] }, { maxBytes: MIB }), 'SOURCE_UNAVAILABLE')

    const idle = t.cluster.openFetchSession()
    t.clock.advance(SESSION_IDLE_EVICTION_MS)
    const fresh = t.cluster.openFetchSession()
    expect([idle.isOpen, fresh.isOpen]).toEqual([false, true])
    await t.cluster.close()
    expect(fresh.isOpen).toBe(false)
  })
})
