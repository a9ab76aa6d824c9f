import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { encodeKey } from '@/lib/mirror/mirror-state-records'
import { PartitionLog } from '@/server/storage/partition-log'
import type { FetchPartitionResult } from '../ports'
import { expectErrorCode, openTestCluster, writeWorkedExample, type TestCluster } from './testing'

let source: TestCluster
let destination: TestCluster

afterEach(async () => {
  await source?.cleanup()
  await destination?.cleanup()
})

const tp = { topic: 'orders', partition: 0 }

/** The source side of the KIP worked example: offsets 0-5 with producers 4001, 4002, 4003 and a plain write. */
async function openSourceWithWorkedExample() {
  source = await openTestCluster({ name: 'us-east', config: { firstProducerId: 4001 } })
  const { cluster } = source
  await writeWorkedExample(cluster)
  return (await cluster.describeTopic('orders')).topicId
}

async function openDestination(topicId: string) {
  destination = await openTestCluster({ name: 'eu-west' })
  await destination.cluster.createMirrorTopic({ name: 'orders', topicId, partitions: 1, mirror: 'dr' })
}

function okFetch(result: FetchPartitionResult | undefined) {
  if (!result?.ok) throw new Error(`fetch failed: ${JSON.stringify(result)}`)
  return result
}

/** One mirror fetch step: fetch at the destination's end with its last epoch, append what came back. */
async function mirrorOnce(maxBytes = 1 << 20) {
  const [d] = (await destination.cluster.describeTopic('orders')).partitions
  const lastFetchedEpoch = await destination.cluster.latestEpoch(tp)
  const fetched = okFetch((await source.cluster.fetch([{ ...tp, fetchOffset: d!.logEndOffset, lastFetchedEpoch, maxBytes }], { maxBytes }))[0])
  expect(fetched.divergingEpoch).toBeNull()
  return destination.cluster.appendMirroredBatches(tp, fetched.records)
}

function segment(t: TestCluster, brokerId: number): Promise<Buffer> {
  return readFile(path.join(t.dir, `broker-${brokerId}`, 'orders-0', '00000000000000000000.log'))
}

describe('MirrorHost', () => {
  it('creates a read-only mirror topic that keeps the source topic id', async () => {
    const topicId = await openSourceWithWorkedExample()
    await openDestination(topicId)
    const topic = await destination.cluster.describeTopic('orders')
    expect(topic).toMatchObject({ name: 'orders', topicId, readOnly: true, mirror: { name: 'dr' } })
    await expectErrorCode(destination.cluster.createMirrorTopic({ name: 'other', topicId, partitions: 1, mirror: 'dr' }), 'CONFLICT')
    expect((await destination.cluster.describeTopics()).map((t) => t.name)).toEqual(['orders'])
  })

  it('appends fetched batches verbatim: every destination replica is byte-identical to the source leader', async () => {
    const topicId = await openSourceWithWorkedExample()
    await openDestination(topicId)
    const result = await mirrorOnce()
    expect(result).toEqual({ logEndOffset: 6, highWatermark: 6, lastBatchEpoch: 0 })
    const [s] = (await source.cluster.describeTopic('orders')).partitions
    const sourceBytes = await segment(source, s!.leader)
    expect(sourceBytes.length).toBeGreaterThan(0)
    const [d] = (await destination.cluster.describeTopic('orders')).partitions
    for (const replica of d!.replicas) expect((await segment(destination, replica)).equals(sourceBytes)).toBe(true)
    const sourceRecords = await source.cluster.readRecords('orders', 0)
    const destinationRecords = await destination.cluster.readRecords('orders', 0)
    expect(destinationRecords.records).toEqual(sourceRecords.records)
    // Producer state is rebuilt from the batches as on a follower: the open transactions are known.
    expect(await destination.cluster.openTransactions(tp)).toEqual([
      { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
      { producerId: 4003, producerEpoch: 0, firstOffset: 4 },
    ])
  })

  it('runs the KIP worked example STOPPING: ABORT per open transaction at the new epoch, then MIRROR_PID_RESET', async () => {
    const topicId = await openSourceWithWorkedExample()
    await openDestination(topicId)
    // Replication reached offset 2: batches [0-1] and [2], one per fetch.
    await mirrorOnce(1)
    await mirrorOnce(1)
    expect((await destination.cluster.describeTopic('orders')).partitions[0]).toMatchObject({ logEndOffset: 3, highWatermark: 3, lastStableOffset: 0 })

    const lastMirrorEpoch = await destination.cluster.latestEpoch(tp)
    expect(lastMirrorEpoch).toBe(0)
    expect(await destination.cluster.bumpLeaderEpoch(tp, lastMirrorEpoch + 1)).toBe(1)
    const open = await destination.cluster.openTransactions(tp)
    expect(open).toEqual([
      { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
      { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
    ])
    expect(await destination.cluster.appendAbortMarkers(tp, open)).toEqual({ offsets: [3, 4] })
    expect(await destination.cluster.appendMirrorPidReset(tp)).toEqual({ offset: 5 })
    await destination.cluster.setReadOnly('orders', false, 'dr')

    const page = await destination.cluster.readRecords('orders', 0)
    expect(page.records.map((r) => [r.offset, r.type, r.producerId, r.leaderEpoch])).toEqual([
      [0, 'DATA', 4001, 0],
      [1, 'DATA', 4001, 0],
      [2, 'DATA', 4002, 0],
      [3, 'ABORT', 4001, 1],
      [4, 'ABORT', 4002, 1],
      [5, 'MIRROR_PID_RESET', null, 1],
    ])
    expect(page).toMatchObject({ lastStableOffset: 6, logEndOffset: 6, highWatermark: 6 })
    const committed = await destination.cluster.readRecords('orders', 0, { isolation: 'read_committed' })
    expect(committed.records.map((r) => r.type)).toEqual(['ABORT', 'ABORT', 'MIRROR_PID_RESET'])

    // Producer state is empty after the reset, on every replica: a producer with a mirrored id starts afresh.
    const [d] = (await destination.cluster.describeTopic('orders')).partitions
    for (const replica of d!.replicas) {
      expect(destination.cluster.replicaLog(tp, replica)!.producerStates()).toEqual([])
      expect(destination.cluster.replicaLog(tp, replica)!.openTransactions()).toEqual([])
    }
    expect(await destination.cluster.produceBatch(tp, { producerId: 4001, producerEpoch: 0, baseSequence: 0, records: [{ value: 'local' }] })).toMatchObject({ baseOffset: 6 })
    // ... also after log recovery.
    await destination.reopen()
    expect(destination.cluster.replicaLog(tp, d!.leader)!.producerStates().map((s) => [s.producerId, s.lastSequence])).toEqual([[4001, 0]])
    expect(await destination.cluster.openTransactions(tp)).toEqual([])
  })

  it('refuses a batch whose epoch is above the destination leader epoch, and takes it after a bump', async () => {
    source = await openTestCluster({ name: 'src' })
    await source.cluster.createTopic({ name: 'orders', partitions: 1 })
    const [s] = (await source.cluster.describeTopic('orders')).partitions
    await source.cluster.produce('orders', { records: [{ value: 'epoch-0' }] })
    await source.cluster.stopBroker(s!.leader)
    await source.cluster.produce('orders', { records: [{ value: 'epoch-1' }] })
    await openDestination((await source.cluster.describeTopic('orders')).topicId)
    await mirrorOnce(1)
    const [fetched] = await source.cluster.fetch([{ ...tp, fetchOffset: 1, lastFetchedEpoch: 0, maxBytes: 1 << 20 }], { maxBytes: 1 << 20 })
    await expectErrorCode(destination.cluster.appendMirroredBatches(tp, okFetch(fetched).records), 'MIRROR_LEADER_EPOCH_EXCEEDED')
    expect((await destination.cluster.describeTopic('orders')).partitions[0]!.logEndOffset).toBe(1)
    await destination.cluster.bumpLeaderEpoch(tp, 11)
    expect(await destination.cluster.appendMirroredBatches(tp, okFetch(fetched).records)).toMatchObject({ logEndOffset: 2, lastBatchEpoch: 1 })
  })

  it('a leader epoch bump on a mirror topic leaves the epoch cache alone; on a normal topic it adds the epoch', async () => {
    const topicId = await openSourceWithWorkedExample()
    await openDestination(topicId)
    await mirrorOnce()
    const [d] = (await destination.cluster.describeTopic('orders')).partitions
    const entriesBefore = destination.cluster.replicaLog(tp, d!.leader)!.epochEntries()
    expect(await destination.cluster.bumpLeaderEpoch(tp, 10)).toBe(10)
    expect(await destination.cluster.bumpLeaderEpoch(tp, 4)).toBe(10)
    expect((await destination.cluster.describeTopic('orders')).partitions[0]!.leaderEpoch).toBe(10)
    expect(destination.cluster.replicaLog(tp, d!.leader)!.epochEntries()).toEqual(entriesBefore)
    expect(await destination.cluster.latestEpoch(tp)).toBe(0)
    expect(await destination.cluster.endOffsetForEpoch(tp, 0)).toEqual({ leaderEpoch: 0, endOffset: 6 })
    expect(await destination.cluster.endOffsetForEpoch(tp, 10)).toEqual({ leaderEpoch: -1, endOffset: -1 })
    // A leadership change on the mirror topic does not add an entry either.
    await destination.cluster.stopBroker(d!.leader)
    expect(await destination.cluster.endOffsetForEpoch(tp, 0)).toEqual({ leaderEpoch: 0, endOffset: 6 })
    expect(await destination.cluster.endOffsetForEpoch(tp, 11)).toEqual({ leaderEpoch: -1, endOffset: -1 })

    await source.cluster.bumpLeaderEpoch(tp, 7)
    expect(await source.cluster.endOffsetForEpoch(tp, 0)).toEqual({ leaderEpoch: 0, endOffset: 6 })
    expect(await source.cluster.endOffsetForEpoch(tp, 7)).toEqual({ leaderEpoch: 7, endOffset: 6 })
  })

  it('refuses client produce, delete-records, partition increase and deletion on a read-only topic, and nothing changes', async () => {
    const topicId = await openSourceWithWorkedExample()
    await openDestination(topicId)
    await mirrorOnce()
    await destination.cluster.createTopic({ name: 'local', partitions: 1 })
    const before = await destination.cluster.describeTopics()
    const txn = await destination.cluster.createTransactionalProducer('writer')
    await expectErrorCode(destination.cluster.produce('orders', { records: [{ value: 'x' }] }), 'TOPIC_READ_ONLY')
    await expectErrorCode(destination.cluster.produceBatch(tp, { records: [{ value: 'x' }] }), 'TOPIC_READ_ONLY')
    await expectErrorCode(txn.send('orders', { records: [{ value: 'x' }] }), 'TOPIC_READ_ONLY')
    await expectErrorCode(destination.cluster.deleteRecords(tp, 1), 'TOPIC_READ_ONLY')
    await expectErrorCode(destination.cluster.createPartitions('orders', 2), 'TOPIC_READ_ONLY')
    await expectErrorCode(destination.cluster.deleteTopic('orders'), 'TOPIC_READ_ONLY')
    expect(await destination.cluster.describeTopics()).toEqual(before)
    expect(destination.cluster.transactionCoordinator.describe('writer')?.state).toBe('Empty')
    // The same requests on a normal topic of the same cluster succeed.
    await destination.cluster.produce('local', { records: [{ value: 'x' }] })
    await destination.cluster.deleteRecords({ topic: 'local', partition: 0 }, 1)
    await destination.cluster.createPartitions('local', 2)
    // The mirror itself may still grow the topic and move its log start.
    await destination.cluster.createMirrorPartitions('orders', 2)
    await destination.cluster.deleteRecordsBefore(tp, 2, { bypassReadOnly: true })
    expect((await destination.cluster.describeTopic('orders')).partitions.map((p) => p.logStartOffset)).toEqual([2, 0])
    // STOPPED: writable again.
    await destination.cluster.setReadOnly('orders', false, null)
    expect(await destination.cluster.produce('orders', { partition: 1, records: [{ value: 'local' }] })).toEqual({ records: [{ partition: 1, offset: 0 }] })
    expect((await destination.cluster.describeTopic('orders')).mirror).toBeNull()
  })

  it('truncates the leader and every replica, a stopped broker included', async () => {
    const topicId = await openSourceWithWorkedExample()
    await openDestination(topicId)
    await mirrorOnce()
    const [d] = (await destination.cluster.describeTopic('orders')).partitions
    const stopped = d!.replicas.find((r) => r !== d!.leader)!
    await destination.cluster.stopBroker(stopped)
    expect(await destination.cluster.truncateTo(tp, 3)).toEqual({ removedRecords: 3, logEndOffset: 3 })
    // What a stopped broker's disk holds is not reported: it is offline until it returns (#38).
    const { leader, replicas } = await destination.cluster.describeReplicas(tp)
    expect(leader).toBe(d!.leader)
    const leaderEpoch = await destination.cluster.latestEpoch(tp)
    expect(replicas).toEqual(d!.replicas.map((brokerId) => (brokerId === stopped ? { brokerId, online: false, logEndOffset: null, latestEpoch: null } : { brokerId, online: true, logEndOffset: 3, latestEpoch: leaderEpoch })))
    const log = await PartitionLog.open(path.join(destination.dir, `broker-${stopped}`, 'orders-0'))
    try {
      expect(log.logEndOffset).toBe(3)
    } finally {
      await log.close()
    }
    for (const replica of d!.replicas.filter((r) => r !== stopped)) expect(destination.cluster.replicaLog(tp, replica)!.logEndOffset).toBe(3)
    expect((await destination.cluster.describeTopic('orders')).partitions[0]).toMatchObject({ logEndOffset: 3, highWatermark: 3 })
    // Mirroring resumes from the truncation point (acks=all once the stopped replica has left the ISR).
    destination.clock.advance(10_001)
    await destination.cluster.tick()
    expect((await destination.cluster.describeTopic('orders')).partitions[0]!.isr).not.toContain(stopped)
    expect(await mirrorOnce()).toMatchObject({ logEndOffset: 6 })
    await destination.cluster.startBroker(stopped)
    expect(destination.cluster.replicaLog(tp, stopped)!.logEndOffset).toBe(6)

    expect(await destination.cluster.truncateFullyAndStartAt(tp, 4)).toEqual({ removedRecords: 6 })
    const after = (await destination.cluster.describeTopic('orders')).partitions[0]!
    expect(after).toMatchObject({ logStartOffset: 4, logEndOffset: 4, highWatermark: 4 })
    for (const replica of after.replicas) expect(destination.cluster.replicaLog(tp, replica)!.logEndOffset).toBe(4)
  })

  it('stores __mirror_state as an internal topic, durable and in order', async () => {
    destination = await openTestCluster({ name: 'eu-west' })
    expect(await destination.cluster.readMirrorState()).toEqual([])
    await destination.cluster.appendMirrorState([
      { key: 'dr/orders/0', value: '{"state":"PREPARING"}' },
      { key: 'dr/orders/1', value: '{"state":"PREPARING"}' },
    ])
    await destination.cluster.appendMirrorState([{ key: 'dr/orders/0', value: '{"state":"MIRRORING"}' }])
    await destination.cluster.appendMirrorState([{ key: 'dr/orders/1', value: null }])
    await expectErrorCode(destination.cluster.appendMirrorState([{ key: '', value: 'x' }]), 'VALIDATION_FAILED')
    await destination.reopen()
    expect(await destination.cluster.readMirrorState()).toEqual([
      { key: 'dr/orders/0', value: '{"state":"PREPARING"}' },
      { key: 'dr/orders/1', value: '{"state":"PREPARING"}' },
      { key: 'dr/orders/0', value: '{"state":"MIRRORING"}' },
      { key: 'dr/orders/1', value: null },
    ])
    expect(await destination.cluster.describeTopics()).toEqual([])
    expect((await destination.cluster.describeTopics(['__mirror_state']))[0]).toMatchObject({ configs: { 'cleanup.policy': 'compact' }, replicationFactor: 3 })
    await expectErrorCode(destination.cluster.produce('__mirror_state', { records: [{ value: 'x' }] }), 'VALIDATION_FAILED')
    await expectErrorCode(destination.cluster.createTopic({ name: '__mirror_state', partitions: 1 }), 'VALIDATION_FAILED')
  })

  it('commits synced group offsets only for groups without active members', async () => {
    const topicId = await openSourceWithWorkedExample()
    await openDestination(topicId)
    await mirrorOnce()
    expect(await destination.cluster.commitSyncedGroupOffset('billing', tp, 3, 0)).toBe(true)
    const member = await destination.cluster.joinGroup('active')
    expect(await destination.cluster.commitSyncedGroupOffset('active', tp, 3)).toBe(false)
    await expectErrorCode(destination.cluster.commitSyncedGroupOffset('billing', tp, 7), 'OFFSET_OUT_OF_RANGE')
    expect(await destination.cluster.listGroupOffsets()).toEqual([
      { groupId: 'active', hasActiveMembers: true, offsets: [] },
      { groupId: 'billing', hasActiveMembers: false, offsets: [{ ...tp, offset: 3, leaderEpoch: 0 }] },
    ])
    await destination.cluster.leaveGroup('active', member)
    expect(await destination.cluster.commitSyncedGroupOffset('active', tp, 2)).toBe(true)
  })

  it('answers hosted mirrors and last mirror positions from its own __mirror_state, also after a restart', async () => {
    destination = await openTestCluster({ name: 'eu-west' })
    expect(await destination.cluster.listHostedMirrors()).toEqual([])
    expect(await destination.cluster.lastMirrorPositions('x', [tp])).toEqual(new Map())
    const definition = { name: 'dr', sourceCluster: 'us-east', destinationCluster: 'eu-west', sourceClusterId: 'abc', topics: ['orders', 'orders-eu'], config: {}, createdAt: 1 }
    const partitionRecord = (topic: string, partition: number, state: string, lastMirrorPosition: { epoch: number; offset: number } | null) => ({
      key: encodeKey({ kind: 'partition', mirror: 'dr', topicId: `id-${topic}`, partition }),
      value: JSON.stringify({ topic, partition, state, stateEpoch: 3, lastMirrorPosition }),
    })
    await destination.cluster.appendMirrorState([
      { key: encodeKey({ kind: 'mirror', mirror: 'dr' }), value: JSON.stringify(definition) },
      partitionRecord('orders', 0, 'MIRRORING', null),
      partitionRecord('orders-eu', 0, 'MIRRORING', null),
      { key: encodeKey({ kind: 'mirror', mirror: 'gone' }), value: JSON.stringify({ ...definition, name: 'gone' }) },
      { key: encodeKey({ kind: 'mirror', mirror: 'gone' }), value: null },
      { key: 'a-key-of-a-newer-version', value: '{}' },
    ])
    await destination.cluster.appendMirrorState([partitionRecord('orders', 0, 'STOPPED', { epoch: 3, offset: 118 })])
    const expectAnswers = async () => {
      expect(await destination.cluster.listHostedMirrors()).toEqual([
        { name: 'dr', sourceClusterId: 'abc', topics: ['orders', 'orders-eu'], partitionStates: { 'orders-0': 'STOPPED', 'orders-eu-0': 'MIRRORING' } },
      ])
      expect(await destination.cluster.listHostedMirrors({ topics: ['orders'] })).toEqual([
        { name: 'dr', sourceClusterId: 'abc', topics: ['orders', 'orders-eu'], partitionStates: { 'orders-0': 'STOPPED' } },
      ])
      expect(await destination.cluster.listHostedMirrors({ topics: ['payments'] })).toEqual([])
      expect(await destination.cluster.lastMirrorPositions('abc', [tp, { topic: 'orders-eu', partition: 0 }])).toEqual(new Map([['orders-0', { epoch: 3, offset: 118 }]]))
      expect(await destination.cluster.lastMirrorPositions('another-source', [tp])).toEqual(new Map())
    }
    await expectAnswers()
    await destination.reopen()
    await expectAnswers()
    await destination.cluster.appendMirrorState([
      { key: encodeKey({ kind: 'partition', mirror: 'dr', topicId: 'id-orders', partition: 0 }), value: null },
      { key: encodeKey({ kind: 'partition', mirror: 'dr', topicId: 'id-orders-eu', partition: 0 }), value: null },
      { key: encodeKey({ kind: 'mirror', mirror: 'dr' }), value: null },
    ])
    expect(await destination.cluster.listHostedMirrors()).toEqual([])
    expect(await destination.cluster.lastMirrorPositions('abc', [tp])).toEqual(new Map())
  })
})
