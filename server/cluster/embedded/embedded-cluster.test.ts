import { cp, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { FetchPartitionResult } from '../ports'
import { EmbeddedCluster } from './embedded-cluster'
import { expectErrorCode, openTestCluster, type TestCluster } from './testing'

let t: TestCluster

afterEach(async () => {
  await t?.cleanup()
})

const tp = { topic: 'orders', partition: 0 }

function okFetch(result: FetchPartitionResult | undefined) {
  if (!result?.ok) throw new Error(`fetch failed: ${JSON.stringify(result)}`)
  return result
}

describe('EmbeddedCluster topics', () => {
  it('creates topics with ids, replicas spread over the brokers, and dynamic configs', async () => {
    t = await openTestCluster()
    const topic = await t.cluster.createTopic({ name: 'orders', partitions: 3, configs: { 'retention.ms': '60000' } })
    expect(topic.topicId).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(topic).toMatchObject({ name: 'orders', replicationFactor: 3, configs: { 'retention.ms': '60000' }, readOnly: false, mirror: null })
    expect(new Set(topic.partitions.map((p) => p.leader)).size).toBe(3)
    for (const p of topic.partitions) expect(p).toMatchObject({ isr: p.replicas, leaderEpoch: 0, logEndOffset: 0, highWatermark: 0 })
    expect(t.cluster.brokers()).toEqual([
      { id: 1, alive: true },
      { id: 2, alive: true },
      { id: 3, alive: true },
    ])
    expect(await t.cluster.clusterId()).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it('rejects bad input with a typed error and changes nothing', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'a' }] })
    await t.cluster.commitOffsets('billing', [{ ...tp, offset: 1 }])
    const topicsBefore = await t.cluster.describeTopics()
    const recordsBefore = await t.cluster.readRecords('orders', 0)
    const groupsBefore = await t.cluster.describeGroups()

    await expectErrorCode(t.cluster.createTopic({ name: 'bad name', partitions: 1 }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createTopic({ name: '..', partitions: 1 }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createTopic({ name: 'x'.repeat(250), partitions: 1 }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createTopic({ name: 'empty', partitions: 0 }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createTopic({ name: 'wide', partitions: 1, replicationFactor: 4 }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createTopic({ name: 'conf', partitions: 1, configs: { 'no.such.config': '1' } }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createTopic({ name: 'conf', partitions: 1, configs: { 'retention.ms': 'soon' } }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createTopic({ name: 'orders', partitions: 1 }), 'CONFLICT')
    await t.cluster.createTopic({ name: 'a.b', partitions: 1 })
    await expectErrorCode(t.cluster.createTopic({ name: 'a_b', partitions: 1 }), 'CONFLICT')
    await t.cluster.deleteTopic('a.b')

    await expectErrorCode(t.cluster.produce('missing', { records: [{ value: 'x' }] }), 'NOT_FOUND')
    await expectErrorCode(t.cluster.produce('orders', { partition: 5, records: [{ value: 'x' }] }), 'NOT_FOUND')
    await expectErrorCode(t.cluster.produce('orders', { records: [] }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.produce('orders', { records: [{ value: 'ok' }, { value: 42 } as never] }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.readRecords('orders', 0, { fromOffset: 5 }), 'OFFSET_OUT_OF_RANGE')
    await expectErrorCode(t.cluster.readRecords('orders', 0, { limit: 0 }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.readRecords('orders', 9), 'NOT_FOUND')
    await expectErrorCode(t.cluster.deleteRecords(tp, 5), 'OFFSET_OUT_OF_RANGE')
    await expectErrorCode(t.cluster.commitOffsets('billing', [{ ...tp, offset: 99 }]), 'OFFSET_OUT_OF_RANGE')
    await expectErrorCode(t.cluster.commitOffsets('billing', [{ ...tp, offset: -1 }]), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.commitOffsets('', [{ ...tp, offset: 0 }]), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.createPartitions('orders', 1), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.alterTopicConfigs('orders', { 'min.insync.replicas': '4' }), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.stopBroker(7), 'NOT_FOUND')
    await expectErrorCode(t.cluster.startBroker(1), 'CONFLICT')
    await expectErrorCode(t.cluster.createTransactionalProducer(''), 'VALIDATION_FAILED')
    await expectErrorCode(t.cluster.fetch([{ ...tp, fetchOffset: -1, lastFetchedEpoch: -1, maxBytes: 10 }], { maxBytes: 10 }), 'VALIDATION_FAILED')

    expect(await t.cluster.describeTopics()).toEqual(topicsBefore)
    expect(await t.cluster.readRecords('orders', 0)).toEqual(recordsBefore)
    expect(await t.cluster.describeGroups()).toEqual(groupsBefore)
  })

  it('treats names of Object.prototype members as ordinary topic names', async () => {
    t = await openTestCluster()
    await expectErrorCode(t.cluster.describeTopic('constructor'), 'NOT_FOUND')
    await t.cluster.createTopic({ name: 'constructor', partitions: 1 })
    expect((await t.cluster.describeTopics(['constructor', 'toString'])).map((d) => d.name)).toEqual(['constructor'])
  })

  it('grows, reconfigures and deletes topics', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1, replicationFactor: 2 })
    await t.cluster.produce('orders', { records: [{ value: 'a' }] })
    await t.cluster.commitOffsets('billing', [{ ...tp, offset: 1 }])
    const grown = await t.cluster.createPartitions('orders', 3)
    expect(grown.partitions.map((p) => p.replicas.length)).toEqual([2, 2, 2])
    await t.cluster.alterTopicConfigs('orders', { 'min.insync.replicas': '2', 'cleanup.policy': 'compact' })
    await t.cluster.deleteTopicConfigs('orders', ['cleanup.policy'])
    expect((await t.cluster.describeTopic('orders')).configs).toEqual({ 'min.insync.replicas': '2' })
    await t.cluster.deleteTopic('orders')
    expect(await t.cluster.describeTopics()).toEqual([])
    expect(await t.cluster.listGroupOffsets()).toEqual([{ groupId: 'billing', hasActiveMembers: false, offsets: [] }])
    const again = await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    expect(again.partitions[0]).toMatchObject({ logEndOffset: 0 })
  })

  // One broker too: a single-replica partition's idle ticks are skipped, but never a due retention check.
  it.each([3, 1])('applies retention.ms on tick with %i broker(s), and the followers follow the leader\'s log start', async (brokers) => {
    t = await openTestCluster({ brokers, config: { retentionCheckIntervalMs: 60_000 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1, configs: { 'retention.ms': '1000', 'segment.bytes': '100' } })
    for (let i = 0; i < 4; i++) await t.cluster.produce('orders', { records: [{ value: `old-${i}`, timestamp: 1 }] })
    await t.cluster.produce('orders', { records: [{ value: 'fresh', timestamp: t.clock.now() + 60_000 }] })
    await t.cluster.tick()
    expect((await t.cluster.describeTopic('orders')).partitions[0]!.logStartOffset).toBe(0)
    t.clock.advance(60_000)
    await t.cluster.tick()
    const [p] = (await t.cluster.describeTopic('orders')).partitions
    expect(p!.logStartOffset).toBeGreaterThan(0)
    expect(p!.logStartOffset).toBeLessThanOrEqual(4)
    expect(p!.replicas).toHaveLength(brokers)
    for (const replica of p!.replicas) expect(t.cluster.replicaLog(tp, replica)!.logStartOffset).toBe(p!.logStartOffset)
  })

  it('refuses acks=all appends when the ISR is below min.insync.replicas', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: 1000 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1, configs: { 'min.insync.replicas': '3' } })
    const [p] = (await t.cluster.describeTopic('orders')).partitions
    await t.cluster.stopBroker(p!.replicas.find((r) => r !== p!.leader)!)
    t.clock.advance(1001)
    await t.cluster.tick()
    await expectErrorCode(t.cluster.produce('orders', { records: [{ value: 'x' }] }), 'NOT_ENOUGH_REPLICAS')
    expect((await t.cluster.describeTopic('orders')).partitions[0]!.logEndOffset).toBe(0)
    expect(await t.cluster.produce('orders', { acks: 'leader', records: [{ value: 'x' }] })).toEqual({ records: [{ partition: 0, offset: 0 }] })
  })
})

describe('EmbeddedCluster producing and reading', () => {
  it('partitions keyed records like Kafka and spreads keyless ones round-robin', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 3 })
    const keyed = await t.cluster.produce('orders', { records: [{ key: 'foobar', value: '1' }, { key: 'foobar', value: '2' }] })
    const expected = (-790332482 & 0x7fffffff) % 3
    expect(keyed.records).toEqual([
      { partition: expected, offset: 0 },
      { partition: expected, offset: 1 },
    ])
    const keyless = await t.cluster.produce('orders', { records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] })
    expect(keyless.records.map((r) => r.partition).sort()).toEqual([0, 1, 2])
  })

  it('pages records, shows headers, and base64-encodes what is not UTF-8', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    for (let i = 0; i < 5; i++) await t.cluster.produce('orders', { records: [{ key: `k${i}`, value: `v${i}`, headers: [{ key: 'h', value: `${i}` }] }] })
    await t.cluster.produce('orders', { records: [{ key: null, value: new Uint8Array([0xff, 0x00]), timestamp: 1234 }] })
    const page = await t.cluster.readRecords('orders', 0, { fromOffset: 2, limit: 2 })
    expect(page.records.map((r) => [r.offset, r.key, r.value, r.headers])).toEqual([
      [2, 'k2', 'v2', [{ key: 'h', value: '2' }]],
      [3, 'k3', 'v3', [{ key: 'h', value: '3' }]],
    ])
    const binary = (await t.cluster.readRecords('orders', 0, { fromOffset: 5 })).records[0]
    expect(binary).toMatchObject({ offset: 5, key: null, value: '/wA=', encoding: 'base64', timestamp: 1234 })
    expect((await t.cluster.readRecords('orders', 0, { fromOffset: 6 })).records).toEqual([])
  })

  it('lists offsets: earliest, latest, by timestamp', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'a', timestamp: 1000 }] })
    await t.cluster.produce('orders', { records: [{ value: 'b', timestamp: 2000 }] })
    await t.cluster.produce('orders', { records: [{ value: 'c', timestamp: 3000 }] })
    await t.cluster.deleteRecords(tp, 1)
    expect(await t.cluster.listOffsets(tp, 'earliest')).toMatchObject({ offset: 1 })
    expect(await t.cluster.listOffsets(tp, 'latest')).toMatchObject({ offset: 3 })
    expect(await t.cluster.listOffsets(tp, { timestamp: 1500 })).toMatchObject({ offset: 1, timestamp: 2000 })
    expect(await t.cluster.listOffsets(tp, { timestamp: 5000 })).toEqual({ offset: null, timestamp: null, leaderEpoch: null })
  })
})

describe('EmbeddedCluster as a SourceCluster', () => {
  it('fetches whole batches up to the high watermark with the next record timestamp as time lag', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'a', timestamp: 100 }, { value: 'b', timestamp: 150 }] })
    await t.cluster.produce('orders', { records: [{ value: 'c', timestamp: 200 }] })
    const first = okFetch((await t.cluster.fetch([{ ...tp, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 1 }], { maxBytes: 1 << 20 }))[0])
    expect(first).toMatchObject({ highWatermark: 3, lastStableOffset: 3, logStartOffset: 0, divergingEpoch: null, leaderEpoch: 0, nextRecordTimestamp: 200 })
    expect(first.records.byteLength).toBeGreaterThan(61)
    const rest = okFetch((await t.cluster.fetch([{ ...tp, fetchOffset: 2, lastFetchedEpoch: 0, maxBytes: 1 << 20 }], { maxBytes: 1 << 20 }))[0])
    expect(rest.nextRecordTimestamp).toBeNull()
    const end = okFetch((await t.cluster.fetch([{ ...tp, fetchOffset: 3, lastFetchedEpoch: 0, maxBytes: 1 << 20 }], { maxBytes: 1 << 20 }))[0])
    expect(end.records.byteLength).toBe(0)
  })

  it('reads a fetch into the caller\'s buffer, each partition\'s records after the one before, the same bytes as without it', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 3 })
    for (const partition of [0, 1, 2]) await t.cluster.produce('orders', { partition, records: [{ value: `a${partition}` }, { value: `b${partition}` }] })
    const requests = [0, 1, 2].map((partition) => ({ topic: 'orders', partition, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 1 << 20 }))
    const into = Buffer.alloc(1 << 16)
    const plain = (await t.cluster.fetch(requests, { maxBytes: 1 << 20 })).map(okFetch)
    const reused = (await t.cluster.fetch(requests, { maxBytes: 1 << 20, into })).map(okFetch)
    let at = into.byteOffset
    for (const [index, result] of reused.entries()) {
      expect(Buffer.compare(Buffer.from(result.records), Buffer.from(plain[index]!.records))).toBe(0)
      expect(result.records.buffer).toBe(into.buffer)
      expect(result.records.byteOffset).toBe(at)
      expect(result.nextRecordTimestamp).toBeNull()
      at += result.records.byteLength
    }
  })

  it('holds a fetch with nothing new until records reach the high watermark (maxWaitMs), then answers with them', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 2 })
    const quiet = [0, 1].map((partition) => ({ topic: 'orders', partition, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 1 << 20 }))
    let answered = false
    const held = t.cluster.fetch(quiet, { maxBytes: 1 << 20, maxWaitMs: 60_000 }).finally(() => (answered = true))
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(answered).toBe(false)
    await t.cluster.produce('orders', { partition: 1, records: [{ value: 'wake' }] })
    const results = await held
    expect(okFetch(results[0]).records.byteLength).toBe(0)
    expect(okFetch(results[1])).toMatchObject({ highWatermark: 1 })
    expect(okFetch(results[1]).records.byteLength).toBeGreaterThan(0)
  })

  it('answers a held fetch with nothing after maxWaitMs, at once when aborted, and never holds one with data', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const request = [{ ...tp, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 1 << 20 }]
    expect(okFetch((await t.cluster.fetch(request, { maxBytes: 1 << 20, maxWaitMs: 20 }))[0]).records.byteLength).toBe(0)
    const controller = new AbortController()
    const held = t.cluster.fetch(request, { maxBytes: 1 << 20, maxWaitMs: 600_000, signal: controller.signal })
    controller.abort()
    expect(okFetch((await held)[0]).highWatermark).toBe(0)
    await t.cluster.produce('orders', { records: [{ value: 'a' }] })
    // Would time the test out if it waited: the data is there already.
    expect(okFetch((await t.cluster.fetch(request, { maxBytes: 1 << 20, maxWaitMs: 600_000 }))[0]).highWatermark).toBe(1)
    await expectErrorCode(t.cluster.fetch(request, { maxBytes: 1 << 20, maxWaitMs: -1 }), 'VALIDATION_FAILED')
  })

  it('reports per-partition errors: unknown partition, out of range, unknown epoch, offline leader', async () => {
    t = await openTestCluster({ brokers: 1 })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'a' }] })
    const results = await t.cluster.fetch(
      [
        { topic: 'nope', partition: 0, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 100 },
        { ...tp, fetchOffset: 9, lastFetchedEpoch: -1, maxBytes: 100 },
        { ...tp, fetchOffset: 1, lastFetchedEpoch: 5, maxBytes: 100 },
      ],
      { maxBytes: 1000 },
    )
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['UNKNOWN_TOPIC_OR_PARTITION', 'OFFSET_OUT_OF_RANGE', 'OFFSET_OUT_OF_RANGE'])
    expect(results[1]).toMatchObject({ logStartOffset: 0, logEndOffset: 1 })
    // Diverging history: the caller claims epoch 0 up to offset 4, we have it up to 1.
    const [diverging] = await t.cluster.fetch([{ ...tp, fetchOffset: 4, lastFetchedEpoch: 0, maxBytes: 100 }], { maxBytes: 100 })
    expect(okFetch(diverging).divergingEpoch).toEqual({ leaderEpoch: 0, endOffset: 1 })
    await t.cluster.stopBroker(1)
    const [down] = await t.cluster.fetch([{ ...tp, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 100 }], { maxBytes: 100 })
    expect(down).toMatchObject({ ok: false, error: { code: 'SOURCE_UNAVAILABLE' } })
    await expectErrorCode(t.cluster.clusterId(), 'SOURCE_UNAVAILABLE')
  })
})

describe('EmbeddedCluster consumer groups', () => {
  it('tracks members and committed offsets; only members commit for an active group', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'a' }, { value: 'b' }] })
    const member = await t.cluster.joinGroup('billing', { sessionTimeoutMs: 3000 })
    await expectErrorCode(t.cluster.commitOffsets('billing', [{ ...tp, offset: 1 }]), 'CONFLICT')
    await t.cluster.commitOffsets('billing', [{ ...tp, offset: 1 }], { memberId: member })
    expect(await t.cluster.describeGroups()).toEqual([{ groupId: 'billing', state: 'Stable', members: [member], offsets: [{ ...tp, offset: 1, leaderEpoch: null }] }])
    t.clock.advance(3001)
    await t.cluster.tick()
    expect((await t.cluster.describeGroups())[0]).toMatchObject({ state: 'Empty', members: [] })
    await t.cluster.commitOffsets('billing', [{ ...tp, offset: 2 }])
    expect((await t.cluster.listGroupOffsets())[0]!.offsets).toEqual([{ ...tp, offset: 2, leaderEpoch: null }])
  })
})

describe('EmbeddedCluster durability', () => {
  it('keeps topics, configs, records, offsets, producer and transaction state, and groups across close and reopen', async () => {
    t = await openTestCluster({ config: { firstProducerId: 500 } })
    const clusterId = await t.cluster.clusterId()
    await t.cluster.createTopic({ name: 'orders', partitions: 2, configs: { 'cleanup.policy': 'compact' } })
    await t.cluster.createMirrorTopic({ name: 'mirrored', topicId: 'src-topic-id', partitions: 1, mirror: 'dr', configs: { 'retention.ms': '1000' } })
    await t.cluster.produce('orders', { partition: 0, records: [{ key: 'k', value: 'v' }] })
    const txn = await t.cluster.createTransactionalProducer('payments')
    await txn.send('orders', { partition: 1, records: [{ value: 'pending' }] })
    await t.cluster.commitOffsets('billing', [{ ...tp, offset: 1, leaderEpoch: 0 }])
    await t.cluster.appendMirrorState([{ key: 'dr/mirrored/0', value: 'MIRRORING' }])
    await t.cluster.bumpLeaderEpoch({ topic: 'mirrored', partition: 0 }, 12)
    const topicsBefore = await t.cluster.describeTopics()
    const producerStatesBefore = t.cluster.replicaLog(tp, topicsBefore[1]!.partitions[0]!.leader)!.producerStates()

    await t.reopen()
    expect(await t.cluster.clusterId()).toBe(clusterId)
    expect(await t.cluster.describeTopics()).toEqual(topicsBefore)
    expect((await t.cluster.readRecords('orders', 0)).records.map((r) => [r.key, r.value, r.producerId])).toEqual([['k', 'v', 500]])
    expect(t.cluster.replicaLog(tp, topicsBefore[1]!.partitions[0]!.leader)!.producerStates()).toEqual(producerStatesBefore)
    expect(t.cluster.transactionCoordinator.describe('payments')).toMatchObject({ producerId: 501, producerEpoch: 0, state: 'Ongoing', partitions: [{ topic: 'orders', partition: 1 }] })
    expect(await t.cluster.openTransactions({ topic: 'orders', partition: 1 })).toEqual([{ producerId: 501, producerEpoch: 0, firstOffset: 0 }])
    expect(await t.cluster.listGroupOffsets()).toEqual([{ groupId: 'billing', hasActiveMembers: false, offsets: [{ ...tp, offset: 1, leaderEpoch: 0 }] }])
    expect(await t.cluster.readMirrorState()).toEqual([{ key: 'dr/mirrored/0', value: 'MIRRORING' }])
    // A new producer after the restart gets an id never handed out before, and the old transactional id is fenced on re-init.
    const again = await t.cluster.createTransactionalProducer('payments')
    expect([again.producerId, again.producerEpoch]).toEqual([501, 2])
    expect((await t.cluster.readRecords('orders', 1)).records.map((r) => r.type)).toEqual(['DATA', 'ABORT'])
    await t.cluster.produce('orders', { partition: 0, records: [{ value: 'new' }] })
    expect((await t.cluster.readRecords('orders', 0)).records.map((r) => r.producerId)).toEqual([500, 1500])
  })

  it('recovers everything acknowledged from the files as a killed process left them', async () => {
    t = await openTestCluster({ config: { firstProducerId: 4001 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    for (let i = 0; i < 5; i++) await t.cluster.produce('orders', { records: [{ key: `k${i}`, value: `v${i}` }] })
    const txn = await t.cluster.createTransactionalProducer('app')
    await txn.send('orders', { records: [{ value: 'open' }] })
    await t.cluster.appendMirrorState([{ key: 'dr/orders/0', value: 'STOPPING' }])
    await t.cluster.commitOffsets('billing', [{ ...tp, offset: 3 }])
    // No close: a copy of the directory is what a SIGKILL leaves behind (no clean-shutdown markers, stale checkpoints).
    const crashed = await mkdtemp(path.join(os.tmpdir(), 'embedded-crash-'))
    await cp(t.dir, crashed, { recursive: true })
    const recovered = await EmbeddedCluster.open(crashed, { name: 'test', clock: t.clock })
    try {
      const page = await recovered.readRecords('orders', 0)
      expect(page.records.map((r) => r.value)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'open'])
      expect(page).toMatchObject({ highWatermark: 6, logEndOffset: 6, lastStableOffset: 5 })
      expect(recovered.transactionCoordinator.describe('app')).toMatchObject({ state: 'Ongoing', producerId: 4002 })
      expect(await recovered.readMirrorState()).toEqual([{ key: 'dr/orders/0', value: 'STOPPING' }])
      expect((await recovered.listGroupOffsets())[0]!.offsets).toEqual([{ ...tp, offset: 3, leaderEpoch: null }])
      const again = await recovered.createTransactionalProducer('app')
      expect(again.producerEpoch).toBe(2)
      expect((await recovered.readRecords('orders', 0, { isolation: 'read_committed' })).records.map((r) => r.type).at(-1)).toBe('ABORT')
    } finally {
      await recovered.close()
      await rm(crashed, { recursive: true, force: true })
    }
  })
})
