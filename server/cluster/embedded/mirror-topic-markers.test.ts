import { afterEach, describe, expect, it } from 'vitest'
import { openTestCluster, type TestCluster } from './testing'

/**
 * A transaction left open on a partition that has since become a mirror destination (the old source after
 * a failback): its history now comes from the mirror, so the local coordinator ends the transaction
 * without writing a marker into it.
 */

let t: TestCluster
afterEach(async () => t?.cleanup())

describe('transaction markers on a mirror topic', () => {
  it('are not written when the coordinator times the transaction out; the transaction still ends', async () => {
    t = await openTestCluster({ config: { transactionTimeoutMs: 1_000 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const producer = await t.cluster.createTransactionalProducer('zombie')
    await producer.send('orders', { partition: 0, records: [{ value: 'before the disaster' }] })
    producer.close()
    await t.cluster.setReadOnly('orders', true, 'back')
    t.clock.advance(1_001)
    await t.cluster.tick()
    await t.cluster.tick()
    const page = await t.cluster.readRecords('orders', 0, { limit: 10 })
    expect(page.records.map((r) => r.type)).toEqual(['DATA'])
    // The coordinator is done with it: the same id starts afresh without a pending abort.
    await t.cluster.setReadOnly('orders', false, null)
    const again = await t.cluster.createTransactionalProducer('zombie')
    expect(again.producerEpoch).toBeGreaterThan(producer.producerEpoch)
    expect((await t.cluster.readRecords('orders', 0, { limit: 10 })).records.map((r) => r.type)).toEqual(['DATA'])
  })
})
