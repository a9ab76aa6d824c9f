import { afterEach, describe, expect, it } from 'vitest'
import { openTestCluster, type TestCluster } from '@/server/cluster/embedded/testing'
import { GroupConsumer, IdempotentWriter, PlainWriter, TransactionalWriter } from './workload-clients'

/** The demo's workload clients against a real embedded cluster, with a manual clock and scripted randomness. */

let t: TestCluster

afterEach(async () => t?.cleanup())

/** Cycles through `values`, so each transaction's fate, size and partition are chosen by the test. */
function scripted(values: number[]): () => number {
  let i = 0
  return () => values[i++ % values.length]!
}

async function allRecords(topic: string) {
  const partitions = (await t.cluster.describeTopic(topic)).partitions
  const pages = await Promise.all(partitions.map((p) => t.cluster.readRecords(topic, p.partition, { limit: 1000 })))
  return pages.flatMap((page) => page.records)
}

describe('the transactional writer', () => {
  it('commits, aborts and holds a transaction open (holding the last stable offset) before committing it', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    // Per transaction: size roll (0: 5 records), fate roll (commit < 0.85 ≤ abort < 0.95 ≤ hold open), partition roll.
    const random = scripted([0, 0.1, 0, 0, 0.9, 0, 0, 0.99, 0, 0])
    const writer = new TransactionalWriter(() => t.cluster, 'orders', { transactionalIds: ['w-1'], random, now: () => t.clock.now(), holdOpenMs: [1_000, 1_000] })
    const run = async (turns: number) => {
      for (let i = 0; i < turns; i++) await writer.step(100)
    }
    // commit: send 5, commit; abort: send 5, abort; hold: send 5, wait.
    await run(2)
    expect(writer.outcomes).toEqual({ committed: 1, aborted: 0, heldOpen: 0 })
    await run(2)
    expect(writer.outcomes).toEqual({ committed: 1, aborted: 1, heldOpen: 0 })
    await run(3)
    expect(writer.outcomes.heldOpen).toBe(1)
    const held = (await t.cluster.describeTopic('orders')).partitions[0]!
    expect(held.lastStableOffset).toBe(12)
    expect(held.logEndOffset).toBe(17)
    t.clock.advance(1_000)
    await run(1)
    expect(writer.outcomes).toEqual({ committed: 2, aborted: 1, heldOpen: 1 })
    expect((await t.cluster.describeTopic('orders')).partitions[0]!.lastStableOffset).toBe(18)
    expect((await allRecords('orders')).map((r) => r.type).filter((type) => type !== 'DATA')).toEqual(['COMMIT', 'ABORT', 'COMMIT'])
  })

  it('starts again after a restart, aborting the transaction its predecessor left open', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const first = new TransactionalWriter(() => t.cluster, 'orders', { transactionalIds: ['w-1'], random: scripted([0, 0.99, 0, 0]), now: () => t.clock.now() })
    await first.step(100)
    await first.close()
    await t.reopen()
    const second = new TransactionalWriter(() => t.cluster, 'orders', { transactionalIds: ['w-1'], random: scripted([0, 0.1, 0]), now: () => t.clock.now() })
    await second.step(100)
    await second.step(100)
    const records = await allRecords('orders')
    expect(records.map((r) => r.type)).toEqual(['DATA', 'DATA', 'DATA', 'DATA', 'DATA', 'ABORT', 'DATA', 'DATA', 'DATA', 'DATA', 'DATA', 'COMMIT'])
    expect(records[5]!.producerEpoch).toBeGreaterThan(records[0]!.producerEpoch!)
  })
})

describe('the plain and idempotent writers', () => {
  it('write without and with a producer id, spread over partitions by key', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'clicks', partitions: 4 })
    await t.cluster.createTopic({ name: 'payments', partitions: 3 })
    expect(await new PlainWriter(() => t.cluster, 'clicks').step(40)).toBe(40)
    expect(await new IdempotentWriter(() => t.cluster, 'payments').step(30)).toBe(30)
    const clicks = await allRecords('clicks')
    expect(clicks).toHaveLength(40)
    expect(clicks.every((r) => r.producerId === null)).toBe(true)
    expect(new Set((await t.cluster.describeTopic('clicks')).partitions.filter((p) => p.logEndOffset > 0).map((p) => p.partition)).size).toBeGreaterThan(1)
    const payments = await allRecords('payments')
    expect(payments.every((r) => r.producerId !== null && !r.transactional)).toBe(true)
  })
})

describe('the group consumer', () => {
  it('reads committed data only, commits its position about once a second, and resumes from it after a restart', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 2 })
    await t.cluster.produce('orders', { partition: 0, records: Array.from({ length: 6 }, (_, i) => ({ value: `v${i}` })) })
    const open = await t.cluster.createTransactionalProducer('open-one')
    await open.send('orders', { partition: 1, records: [{ value: 'uncommitted' }] })
    const consumer = new GroupConsumer(() => t.cluster, 'orders', 'billing', () => t.clock.now())
    t.clock.advance(5_000)
    expect(await consumer.step(100)).toBe(6)
    const committed = async () => (await t.cluster.describeGroups()).find((g) => g.groupId === 'billing')?.offsets.map((o) => [o.partition, o.offset])
    expect(await committed()).toEqual([[0, 6]])
    expect((await t.cluster.describeGroups()).find((g) => g.groupId === 'billing')?.members).toHaveLength(1)
    await open.commit()
    // Within the commit interval the position moves but is not committed yet.
    expect(await consumer.step(100)).toBe(1)
    expect(await committed()).toEqual([[0, 6]])
    t.clock.advance(1_000)
    await consumer.step(100)
    expect(await committed()).toEqual([
      [0, 6],
      [1, 2],
    ])
    await consumer.close()
    await t.cluster.produce('orders', { partition: 0, records: [{ value: 'later' }] })
    const restarted = new GroupConsumer(() => t.cluster, 'orders', 'billing', () => t.clock.now())
    expect(await restarted.step(100)).toBe(1)
  })

  it('resets a position the log no longer holds, as auto.offset.reset does, and commits the reset position', async () => {
    t = await openTestCluster({ brokers: 3 })
    await t.cluster.createTopic({ name: 'clicks', partitions: 1, replicationFactor: 3 })
    // Two batches: an unclean election cuts at a batch boundary.
    await t.cluster.produce('clicks', { partition: 0, records: Array.from({ length: 6 }, (_, i) => ({ value: `c${i}` })) })
    await t.cluster.produce('clicks', { partition: 0, records: Array.from({ length: 4 }, (_, i) => ({ value: `c${6 + i}` })) })
    const consumer = new GroupConsumer(() => t.cluster, 'clicks', 'analytics', () => t.clock.now())
    t.clock.advance(5_000)
    expect(await consumer.step(100)).toBe(10)
    // An unclean election cuts the log back below the consumer's position: it resumes at the new log end.
    const { logEndOffset } = await t.cluster.electLaggingReplicaUncleanly({ topic: 'clicks', partition: 0 }, 4)
    expect(logEndOffset).toBe(6)
    expect(await consumer.step(100)).toBe(0)
    await t.cluster.produce('clicks', { partition: 0, records: [{ value: 'after' }] })
    t.clock.advance(1_000)
    expect(await consumer.step(100)).toBe(1)
    const committed = (await t.cluster.describeGroups()).find((g) => g.groupId === 'analytics')?.offsets
    expect(committed?.map((o) => o.offset)).toEqual([7])
    // Records deleted below the position's successor: a position under the log start moves up to it.
    await t.cluster.produce('clicks', { partition: 0, records: Array.from({ length: 5 }, (_, i) => ({ value: `d${i}` })) })
    const behindStart = new GroupConsumer(() => t.cluster, 'clicks', 'late', () => t.clock.now())
    await t.cluster.deleteRecords({ topic: 'clicks', partition: 0 }, 9)
    expect(await behindStart.step(100)).toBe(3)
  })

  it('says how far behind it is: committed records it has not read yet, none before its first read', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'clicks', partitions: 2 })
    const consumer = new GroupConsumer(() => t.cluster, 'clicks', 'analytics', () => t.clock.now())
    expect(consumer.behindRecords()).toBeNull()
    await t.cluster.produce('clicks', { partition: 0, records: Array.from({ length: 30 }, (_, i) => ({ value: `c${i}` })) })
    await t.cluster.produce('clicks', { partition: 1, records: Array.from({ length: 10 }, (_, i) => ({ value: `d${i}` })) })
    // A budget of 8 reads 4 of each partition: 26 + 6 left.
    expect(await consumer.step(8)).toBe(8)
    expect(consumer.behindRecords()).toBe(32)
    // An open transaction is not behind: read_committed stops at the last stable offset.
    const open = await t.cluster.createTransactionalProducer('open-one')
    await open.send('clicks', { partition: 1, records: [{ value: 'uncommitted' }] })
    await consumer.step(100)
    expect(consumer.behindRecords()).toBe(0)
    await open.abort()
  })
})
