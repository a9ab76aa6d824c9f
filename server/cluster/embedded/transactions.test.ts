import { afterEach, describe, expect, it } from 'vitest'
import type { RecordView } from './records-view'
import { expectErrorCode, openTestCluster, writeWorkedExample, type TestCluster } from './testing'

let t: TestCluster

afterEach(async () => {
  await t?.cleanup()
})

const tp = { topic: 'orders', partition: 0 }

function rows(records: RecordView[]) {
  return records.map((r) => [r.offset, r.type, r.producerId, r.key, r.value])
}


describe('transactions', () => {
  it('reproduces the source log of the KIP worked example, offsets and producer ids exactly', async () => {
    t = await openTestCluster({ config: { firstProducerId: 4001 } })
    const { p4001, p4002, p4003 } = await writeWorkedExample(t.cluster)
    expect([p4001.producerId, p4002.producerId, p4003.producerId]).toEqual([4001, 4002, 4003])
    const page = await t.cluster.readRecords('orders', 0, { isolation: 'read_uncommitted' })
    expect(rows(page.records)).toEqual([
      [0, 'DATA', 4001, 'A', '1'],
      [1, 'DATA', 4001, 'B', '2'],
      [2, 'DATA', 4002, 'X', '9'],
      [3, 'COMMIT', 4001, null, null],
      [4, 'DATA', 4003, 'Y', '5'],
      [5, 'DATA', null, 'Z', '10'],
    ])
    expect(page.records.map((r) => r.transactional)).toEqual([true, true, true, true, true, false])
    expect(page).toMatchObject({ highWatermark: 6, logEndOffset: 6, lastStableOffset: 2 })
  })

  it('read_committed stops at the LSO and leaves out aborted data, keeping control records', async () => {
    t = await openTestCluster({ config: { firstProducerId: 4001 } })
    const { p4002, p4003 } = await writeWorkedExample(t.cluster)
    const before = await t.cluster.readRecords('orders', 0, { isolation: 'read_committed' })
    // 4002's transaction is open from offset 2: nothing at or above it is visible yet.
    expect(rows(before.records)).toEqual([
      [0, 'DATA', 4001, 'A', '1'],
      [1, 'DATA', 4001, 'B', '2'],
    ])
    await p4002.abort()
    await p4003.commit()
    const after = await t.cluster.readRecords('orders', 0, { isolation: 'read_committed' })
    expect(rows(after.records)).toEqual([
      [0, 'DATA', 4001, 'A', '1'],
      [1, 'DATA', 4001, 'B', '2'],
      [3, 'COMMIT', 4001, null, null],
      [4, 'DATA', 4003, 'Y', '5'],
      [5, 'DATA', null, 'Z', '10'],
      [6, 'ABORT', 4002, null, null],
      [7, 'COMMIT', 4003, null, null],
    ])
    expect(after.lastStableOffset).toBe(8)
    const uncommitted = await t.cluster.readRecords('orders', 0, { isolation: 'read_uncommitted' })
    expect(uncommitted.records.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  })

  it('writes a marker on every partition of the transaction', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 3 })
    const producer = await t.cluster.createTransactionalProducer('multi')
    await producer.send('orders', { partition: 0, records: [{ value: 'a' }] })
    await producer.send('orders', { partition: 2, records: [{ value: 'b' }, { value: 'c' }] })
    expect(t.cluster.transactionCoordinator.describe('multi')).toMatchObject({ state: 'Ongoing', partitions: [tp, { topic: 'orders', partition: 2 }] })
    await producer.commit()
    const p0 = await t.cluster.readRecords('orders', 0)
    const p1 = await t.cluster.readRecords('orders', 1)
    const p2 = await t.cluster.readRecords('orders', 2)
    expect(p0.records.map((r) => r.type)).toEqual(['DATA', 'COMMIT'])
    expect(p1.records).toEqual([])
    expect(p2.records.map((r) => r.type)).toEqual(['DATA', 'DATA', 'COMMIT'])
    expect(t.cluster.transactionCoordinator.describe('multi')).toMatchObject({ state: 'CompleteCommit', partitions: [] })
    // Sequences continue across transactions of the same producer epoch.
    await producer.send('orders', { partition: 0, records: [{ value: 'd' }] })
    await producer.abort()
    const again = await t.cluster.readRecords('orders', 0, { isolation: 'read_committed' })
    expect(again.records.map((r) => [r.offset, r.type, r.value])).toEqual([
      [0, 'DATA', 'a'],
      [1, 'COMMIT', null],
      [3, 'ABORT', null],
    ])
  })

  it('a newer initProducerId fences the previous producer and aborts its open transaction', async () => {
    t = await openTestCluster({ config: { firstProducerId: 100 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const first = await t.cluster.createTransactionalProducer('payments')
    await first.send('orders', { records: [{ key: 'k', value: 'v1' }] })
    const second = await t.cluster.createTransactionalProducer('payments')
    expect([second.producerId, second.producerEpoch]).toEqual([100, 2])
    const page = await t.cluster.readRecords('orders', 0)
    // The abort carries the bumped epoch 1, which fences epoch 0 at the partition too.
    expect(page.records.map((r) => [r.offset, r.type, r.producerId, r.producerEpoch])).toEqual([
      [0, 'DATA', 100, 0],
      [1, 'ABORT', 100, 1],
    ])
    await expectErrorCode(first.send('orders', { records: [{ value: 'late' }] }), 'INVALID_PRODUCER_EPOCH')
    await expectErrorCode(first.commit(), 'INVALID_PRODUCER_EPOCH')
    await expectErrorCode(t.cluster.produceBatch(tp, { producerId: 100, producerEpoch: 0, baseSequence: 1, transactional: true, records: [{ value: 'zombie' }] }), 'INVALID_PRODUCER_EPOCH')
    expect((await t.cluster.readRecords('orders', 0)).logEndOffset).toBe(2)
    await second.send('orders', { records: [{ value: 'v2' }] })
    await second.commit()
    const committed = await t.cluster.readRecords('orders', 0, { isolation: 'read_committed' })
    expect(committed.records.map((r) => [r.type, r.value])).toEqual([
      ['ABORT', null],
      ['DATA', 'v2'],
      ['COMMIT', null],
    ])
  })

  it('aborts an abandoned transaction after its timeout, on tick, and fences its producer', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const producer = await t.cluster.createTransactionalProducer('abandoned', { transactionTimeoutMs: 5000 })
    await producer.send('orders', { records: [{ value: 'x' }] })
    t.clock.advance(5000)
    await t.cluster.tick()
    expect(t.cluster.transactionCoordinator.describe('abandoned')?.state).toBe('Ongoing')
    t.clock.advance(1)
    await t.cluster.tick()
    expect(t.cluster.transactionCoordinator.describe('abandoned')).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1 })
    const page = await t.cluster.readRecords('orders', 0, { isolation: 'read_committed' })
    expect(page.records.map((r) => [r.offset, r.type])).toEqual([[1, 'ABORT']])
    expect(page.lastStableOffset).toBe(2)
    await expectErrorCode(producer.send('orders', { records: [{ value: 'y' }] }), 'INVALID_PRODUCER_EPOCH')
  })

  it('keeps an open transaction across a restart so that its timeout still aborts it', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 2 })
    const producer = await t.cluster.createTransactionalProducer('crashy', { transactionTimeoutMs: 60_000 })
    await producer.send('orders', { partition: 0, records: [{ value: 'a' }] })
    await producer.send('orders', { partition: 1, records: [{ value: 'b' }] })
    producer.close()
    await t.reopen()
    expect(t.cluster.transactionCoordinator.describe('crashy')).toMatchObject({ state: 'Ongoing', partitions: [tp, { topic: 'orders', partition: 1 }] })
    expect(await t.cluster.openTransactions(tp)).toEqual([{ producerId: producer.producerId, producerEpoch: 0, firstOffset: 0 }])
    t.clock.advance(60_001)
    await t.cluster.tick()
    for (const partition of [0, 1]) {
      const page = await t.cluster.readRecords('orders', partition)
      expect(page.records.map((r) => r.type)).toEqual(['DATA', 'ABORT'])
      expect(page.lastStableOffset).toBe(2)
    }
    expect(await t.cluster.openTransactions(tp)).toEqual([])
  })

  it('a closed handle leaves its transaction open', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const producer = await t.cluster.createTransactionalProducer('left-open')
    await producer.send('orders', { records: [{ value: 'a' }] })
    const handle = producer.handle
    expect(t.cluster.transactionalProducer(handle)).toBe(producer)
    producer.close()
    await expectErrorCode(async () => t.cluster.transactionalProducer(handle), 'NOT_FOUND')
    await expectErrorCode(producer.send('orders', { records: [{ value: 'b' }] }), 'NOT_FOUND')
    expect(await t.cluster.openTransactions(tp)).toHaveLength(1)
    expect((await t.cluster.readRecords('orders', 0, { isolation: 'read_committed' })).records).toEqual([])
  })
})

describe('idempotent producers', () => {
  it('ignores a duplicate batch and returns its original offsets', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const batch = { producerId: 7000, producerEpoch: 0, baseSequence: 0, records: [{ value: 'a' }, { value: 'b' }] }
    expect(await t.cluster.produceBatch(tp, batch)).toEqual({ baseOffset: 0, lastOffset: 1, duplicate: false })
    expect(await t.cluster.produceBatch(tp, batch)).toEqual({ baseOffset: 0, lastOffset: 1, duplicate: true })
    expect(await t.cluster.produceBatch(tp, { ...batch, baseSequence: 2, records: [{ value: 'c' }] })).toEqual({ baseOffset: 2, lastOffset: 2, duplicate: false })
    expect((await t.cluster.readRecords('orders', 0)).records.map((r) => r.value)).toEqual(['a', 'b', 'c'])
  })

  it('rejects a sequence gap and an older epoch, and nothing is written', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produceBatch(tp, { producerId: 7000, producerEpoch: 1, baseSequence: 0, records: [{ value: 'a' }] })
    await expectErrorCode(t.cluster.produceBatch(tp, { producerId: 7000, producerEpoch: 1, baseSequence: 5, records: [{ value: 'gap' }] }), 'OUT_OF_ORDER_SEQUENCE')
    await expectErrorCode(t.cluster.produceBatch(tp, { producerId: 7000, producerEpoch: 0, baseSequence: 1, records: [{ value: 'old' }] }), 'INVALID_PRODUCER_EPOCH')
    const page = await t.cluster.readRecords('orders', 0)
    expect(page.records.map((r) => r.value)).toEqual(['a'])
    expect(page.logEndOffset).toBe(1)
  })

  it('numbers sequences per partition for the default idempotent producer', async () => {
    t = await openTestCluster({ config: { firstProducerId: 50 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 2 })
    await t.cluster.produce('orders', { partition: 0, records: [{ value: 'a' }, { value: 'b' }] })
    await t.cluster.produce('orders', { partition: 1, records: [{ value: 'c' }] })
    await t.cluster.produce('orders', { partition: 0, records: [{ value: 'd' }] })
    const states = t.cluster.replicaLog(tp, t.cluster.replicatedPartition(tp).metadata.leader)!.producerStates()
    expect(states).toMatchObject([{ producerId: 50, producerEpoch: 0, lastSequence: 2, lastOffset: 2 }])
    // A retry of the second batch is recognised as a duplicate.
    expect(await t.cluster.produceBatch(tp, { producerId: 50, producerEpoch: 0, baseSequence: 2, records: [{ value: 'd' }] })).toMatchObject({ baseOffset: 2, duplicate: true })
  })

  it('never reuses a producer id after a restart', async () => {
    t = await openTestCluster({ config: { firstProducerId: 10, producerIdBlockSize: 5 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'a' }] })
    const a = await t.cluster.createTransactionalProducer('tx-a')
    expect(a.producerId).toBe(11)
    await t.reopen()
    const b = await t.cluster.createTransactionalProducer('tx-b')
    expect(b.producerId).toBe(15)
    await t.cluster.produce('orders', { records: [{ value: 'b' }] })
    const page = await t.cluster.readRecords('orders', 0)
    expect(page.records.map((r) => r.producerId)).toEqual([10, 16])
  })
})
