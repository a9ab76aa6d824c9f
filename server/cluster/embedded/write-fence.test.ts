import { afterEach, describe, expect, it } from 'vitest'
import { expectErrorCode, openTestCluster, type TestCluster } from './testing'

/** A planned switchover's fence on an embedded source (issue #34): the broker refuses every client write. */

let handle: TestCluster
afterEach(async () => handle?.cleanup())

const FENCE = { mirror: 'm', operation: 'op-1' }

describe('write fence', () => {
  it('refuses plain, idempotent, raw and transactional writes with TOPIC_WRITE_FENCED, and nothing is appended', async () => {
    handle = await openTestCluster({ brokers: 1 })
    const { cluster } = handle
    await cluster.createTopic({ name: 'orders', partitions: 1 })
    await cluster.createTopic({ name: 'other', partitions: 1 })
    await cluster.produce('orders', { records: [{ value: 'before' }] })
    await cluster.fenceWrites(['orders', 'missing'], FENCE)
    const txn = await cluster.createTransactionalProducer('writer')
    await expectErrorCode(cluster.produce('orders', { records: [{ value: 'x' }] }), 'TOPIC_WRITE_FENCED')
    await expectErrorCode(cluster.produce('orders', { idempotent: false, records: [{ value: 'x' }] }), 'TOPIC_WRITE_FENCED')
    await expectErrorCode(cluster.produceBatch({ topic: 'orders', partition: 0 }, { records: [{ value: 'x' }] }), 'TOPIC_WRITE_FENCED')
    await expectErrorCode(txn.send('orders', { records: [{ value: 'x' }] }), 'TOPIC_WRITE_FENCED')
    await expectErrorCode(cluster.deleteRecords({ topic: 'orders', partition: 0 }, 1), 'TOPIC_WRITE_FENCED')
    await expectErrorCode(cluster.deleteTopic('orders'), 'TOPIC_WRITE_FENCED')
    expect((await cluster.describeTopic('orders')).partitions[0]!.logEndOffset).toBe(1)
    // Other topics of the same cluster are untouched.
    await cluster.produce('other', { records: [{ value: 'x' }] })
    expect(await cluster.writeFences()).toEqual([{ topic: 'orders', mirror: 'm', operation: 'op-1', since: handle.clock.now() }])
  })

  it('lets a transaction open at the fence commit (markers are not client writes), and aborts open ones at the coordinator when asked', async () => {
    handle = await openTestCluster({ brokers: 1 })
    const { cluster } = handle
    await cluster.createTopic({ name: 'orders', partitions: 1 })
    const committing = await cluster.createTransactionalProducer('committing')
    const stuck = await cluster.createTransactionalProducer('stuck')
    await committing.send('orders', { records: [{ value: 'c' }] })
    await stuck.send('orders', { records: [{ value: 's' }] })
    await cluster.fenceWrites(['orders'], FENCE)
    expect(await committing.commit()).toEqual({ markersWritten: true })
    const tp = { topic: 'orders', partition: 0 }
    expect((await cluster.openTransactions(tp)).length).toBe(1)
    expect(await cluster.abortOpenTransactions(['orders'])).toBe(1)
    expect(await cluster.openTransactions(tp)).toEqual([])
    expect(await cluster.findControlRecord(tp, 'ABORT', 0)).not.toBeNull()
    const description = (await cluster.describeTopic('orders')).partitions[0]!
    expect(description.lastStableOffset).toBe(description.logEndOffset)
    expect(await cluster.abortOpenTransactions(['orders'])).toBe(0)
  })

  it('survives a restart, and only the mirror that set it lifts it', async () => {
    handle = await openTestCluster({ brokers: 1 })
    await handle.cluster.createTopic({ name: 'orders', partitions: 1 })
    await handle.cluster.fenceWrites(['orders'], FENCE)
    const cluster = await handle.reopen()
    await expectErrorCode(cluster.produce('orders', { records: [{ value: 'x' }] }), 'TOPIC_WRITE_FENCED')
    await cluster.unfenceWrites(['orders'], 'another-mirror')
    await expectErrorCode(cluster.produce('orders', { records: [{ value: 'x' }] }), 'TOPIC_WRITE_FENCED')
    await cluster.unfenceWrites(['orders'], 'm')
    expect(await cluster.writeFences()).toEqual([])
    const { records } = await cluster.produce('orders', { records: [{ value: 'after' }] })
    expect(records).toEqual([{ partition: 0, offset: 0 }])
  })
})
