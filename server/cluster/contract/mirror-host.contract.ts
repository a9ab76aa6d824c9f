import 'server-only'
import { describe, expect, it } from 'vitest'
import { encodeKey } from '@/lib/mirror/mirror-state-records'
import { WORKED_EXAMPLE } from '@/lib/mirror/worked-example'
import type { FetchPartitionResult, SourceCluster, TopicPartition } from '../ports'
import { errorCodeOf, errorOf, summarizeBatches, type ContractFactory, type ContractTransaction } from './contract'
import { contractSuite } from './suite'

const MIB = 1 << 20
const MIRROR = 'contract-mirror'

async function fetchAll(cluster: SourceCluster, tp: TopicPartition, fromOffset = 0): Promise<Extract<FetchPartitionResult, { ok: true }>> {
  const [result] = await cluster.fetch([{ ...tp, fetchOffset: fromOffset, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
  if (!result?.ok) throw new Error(`expected a successful fetch of ${tp.topic}-${tp.partition}, got ${JSON.stringify(result)}`)
  return result
}

/**
 * The MirrorHost behaviours every destination implementation owes the engine (DESIGN.md §2.1): mirror topics,
 * appends at the source's offsets, truncation, epoch bumps, the STOPPING markers of the KIP's worked example,
 * the read-only flag, `__mirror_state` and the hosted mirrors answered from it, synced group offsets.
 * Parameterised as source-cluster.contract.ts is; an emulating destination declares what it cannot do.
 */
export function describeMirrorHostContract(factory: ContractFactory): void {
  describe(`MirrorHost contract: ${factory.name}`, () => {
    const suite = contractSuite(factory)
    const itWith = suite.itWith

    /** A source topic with one partition and its mirror topic on the destination, of the same topic id. */
    async function mirroredTopic(name: string, partitions = 1): Promise<TopicPartition> {
      await suite.fixture.sourceClient.createTopic(name, { partitions })
      const [source] = await suite.fixture.source.describeTopics([name])
      await suite.fixture.host.createMirrorTopic({ name, topicId: source!.topicId, partitions, mirror: MIRROR })
      return { topic: name, partition: 0 }
    }

    it('creates a read-only mirror topic with the source topic id; partitions only grow', async () => {
      const { host, source, sourceClient } = suite.fixture
      await sourceClient.createTopic('mh-create', { partitions: 2 })
      const [sourceTopic] = await source.describeTopics(['mh-create'])
      const created = await host.createMirrorTopic({ name: 'mh-create', topicId: sourceTopic!.topicId, partitions: 2, configs: { 'retention.ms': '60000' }, mirror: MIRROR })
      expect(created).toMatchObject({ name: 'mh-create', topicId: sourceTopic!.topicId, readOnly: true, mirror: { name: MIRROR }, configs: { 'retention.ms': '60000' } })
      expect(created.partitions).toHaveLength(2)
      expect(await errorCodeOf(() => host.createMirrorTopic({ name: 'mh-create-again', topicId: sourceTopic!.topicId, partitions: 1, mirror: MIRROR }))).toBe('CONFLICT')
      await host.createMirrorPartitions('mh-create', 3)
      await host.createMirrorPartitions('mh-create', 1)
      await host.alterTopicConfigs('mh-create', { 'cleanup.policy': 'compact' })
      const [grown] = await host.describeTopics(['mh-create'])
      expect(grown!.partitions).toHaveLength(3)
      expect(grown!.configs).toEqual({ 'retention.ms': '60000', 'cleanup.policy': 'compact' })
    })

    itWith(['readOnlyEnforcement'], 'refuses client writes and deletions on a read-only mirror topic', async () => {
      const { hostClient } = suite.fixture
      const tp = await mirroredTopic('mh-read-only')
      expect(await errorCodeOf(() => hostClient.produce(tp, [{ value: 'client write' }]))).toBe('TOPIC_READ_ONLY')
      expect(await errorCodeOf(() => hostClient.deleteRecords(tp, 0))).toBe('TOPIC_READ_ONLY')
    })

    itWith(['verbatimAppend'], 'appends fetched batches as they are, at the source offsets, and refuses a batch below the log end', async () => {
      const { host, hostAsSource, source, sourceClient } = suite.fixture
      const tp = await mirroredTopic('mh-append')
      await sourceClient.produce(tp, [{ value: 'a' }, { value: 'b' }])
      await sourceClient.produce(tp, [{ value: 'c' }])
      const fetched = await fetchAll(source, tp)
      const epoch = summarizeBatches(fetched.records).at(-1)!.leaderEpoch
      expect(await host.appendMirroredBatches(tp, fetched.records)).toEqual({ logEndOffset: 3, highWatermark: 3, lastBatchEpoch: epoch })
      expect(Buffer.from((await fetchAll(hostAsSource, tp)).records).equals(Buffer.from(fetched.records))).toBe(true)
      expect(await host.describePartition(tp)).toMatchObject({ logStartOffset: 0, highWatermark: 3, logEndOffset: 3 })
      expect(await host.latestEpoch(tp)).toBe(epoch)
      expect(await host.latestEpochs([tp, tp])).toEqual([epoch, epoch])
      expect(await host.endOffsetForEpoch(tp, epoch)).toEqual({ leaderEpoch: epoch, endOffset: 3 })
      // Every replica of the assignment, each at the leader's end in its epoch once the append is replicated (#38).
      const { leader, replicas } = await host.describeReplicas(tp)
      const described = await host.describePartition(tp)
      expect(leader).toBe(described.leader)
      expect(replicas.map((replica) => replica.brokerId)).toEqual(described.replicas)
      for (const replica of replicas) expect(replica).toEqual({ brokerId: replica.brokerId, online: true, logEndOffset: 3, latestEpoch: epoch })
      expect(await errorCodeOf(() => host.appendMirroredBatches(tp, fetched.records))).toBe('OFFSET_OUT_OF_RANGE')
      expect((await host.describePartition(tp)).logEndOffset).toBe(3)
    })

    itWith(['verbatimAppend', 'epochBump', 'leaderElection'], 'refuses a batch above the partition leader epoch until the epoch is bumped; a bump never lowers it', async () => {
      const { host, source, sourceClient } = suite.fixture
      const tp = await mirroredTopic('mh-epoch')
      await sourceClient.produce(tp, [{ value: 'before the election' }])
      await sourceClient.electAnotherLeader!(tp)
      await sourceClient.produce(tp, [{ value: 'after the election' }])
      const fetched = await fetchAll(source, tp)
      const newest = Math.max(...summarizeBatches(fetched.records).map((b) => b.leaderEpoch))
      const destinationEpoch = (await host.describePartition(tp)).leaderEpoch
      expect(newest).toBeGreaterThan(destinationEpoch)
      expect(await errorCodeOf(() => host.appendMirroredBatches(tp, fetched.records))).toBe('MIRROR_LEADER_EPOCH_EXCEEDED')
      expect((await host.describePartition(tp)).logEndOffset).toBe(0)
      expect(await host.bumpLeaderEpoch(tp, newest + 10)).toBe(newest + 10)
      expect(await host.bumpLeaderEpoch(tp, 1)).toBe(newest + 10)
      expect((await host.describePartition(tp)).leaderEpoch).toBe(newest + 10)
      expect((await host.appendMirroredBatches(tp, fetched.records)).logEndOffset).toBe(2)
      // A mirror partition's epoch cache holds the mirrored batches' epochs only, not the bump (KIP-1279 §3.1).
      expect(await host.latestEpoch(tp)).toBe(newest)
    })

    itWith(['truncation'], 'truncates every replica to an offset (whole batches), or empties the partition to restart at one', async () => {
      const { host, source, sourceClient } = suite.fixture
      const tp = await mirroredTopic('mh-truncate')
      for (const value of ['a', 'b', 'c']) await sourceClient.produce(tp, [{ value }])
      await host.appendMirroredBatches(tp, (await fetchAll(source, tp)).records)
      expect(await host.truncateTo(tp, 1)).toEqual({ removedRecords: 2, logEndOffset: 1 })
      expect(await host.describePartition(tp)).toMatchObject({ highWatermark: 1, logEndOffset: 1 })
      expect(await host.truncateTo(tp, 5)).toEqual({ removedRecords: 0, logEndOffset: 1 })
      expect(await host.truncateFullyAndStartAt(tp, 10)).toEqual({ removedRecords: 1 })
      expect(await host.describePartition(tp)).toMatchObject({ logStartOffset: 10, highWatermark: 10, logEndOffset: 10 })
      expect(await host.latestEpoch(tp)).toBe(-1)
    })

    itWith(['verbatimAppend', 'epochBump', 'mirrorPidReset'], "comes out as the KIP's worked example: ABORT per open transaction by first offset, then one MIRROR_PID_RESET", async () => {
      const { host, hostAsSource, hostClient, source, sourceClient } = suite.fixture
      const tp = await mirroredTopic(WORKED_EXAMPLE.topic)
      const producers: ContractTransaction[] = []
      for (const id of WORKED_EXAMPLE.transactionalIds) producers.push(await sourceClient.transactionalProducer(id))
      for (const step of WORKED_EXAMPLE.stepsBeforeMirroring) await producers[step.producer]!.send(tp, step.records.map((r) => ({ ...r })))
      await host.appendMirroredBatches(tp, (await fetchAll(source, tp)).records)
      expect((await host.describePartition(tp)).logEndOffset).toBe(WORKED_EXAMPLE.mirroredLogEndOffset)
      const open = await host.openTransactions(tp)
      expect(open.map((t) => [t.producerId, t.firstOffset])).toEqual(
        WORKED_EXAMPLE.openTransactionsAtFailover.map((t) => [producers[t.producer]!.producerId, t.firstOffset]),
      )
      // The STOPPING sequence: epoch strictly above the latest mirrored one, the ABORTs, the reset record.
      const stoppedEpoch = await host.bumpLeaderEpoch(tp, (await host.latestEpoch(tp)) + 1)
      expect(await host.appendAbortMarkers(tp, open.map(({ producerId, producerEpoch }) => ({ producerId, producerEpoch })))).toEqual({ offsets: [3, 4] })
      expect(await host.appendMirrorPidReset(tp)).toEqual({ offset: 5 })
      expect(await host.openTransactions(tp)).toEqual([])
      expect(await host.findControlRecord(tp, 'MIRROR_PID_RESET', 0)).toBe(5)
      expect(await host.findControlRecord(tp, 'ABORT', 4)).toBe(4)
      expect(await host.findControlRecord(tp, 'COMMIT', 0)).toBeNull()
      const batches = summarizeBatches((await fetchAll(hostAsSource, tp)).records)
      // Per offset, the type of the batch holding it (A and B are one batch of two records).
      const typeAt = (offset: number) => batches.find((b) => b.baseOffset <= offset && offset <= b.lastOffset)?.type
      expect(WORKED_EXAMPLE.destinationLogAfterFailover.map((r) => [r.offset, typeAt(r.offset)])).toEqual(WORKED_EXAMPLE.destinationLogAfterFailover.map((r) => [r.offset, r.type]))
      const markers = batches.filter((b) => b.baseOffset >= WORKED_EXAMPLE.mirroredLogEndOffset)
      expect(markers.map((b) => [b.baseOffset, b.leaderEpoch])).toEqual([
        [3, stoppedEpoch],
        [4, stoppedEpoch],
        [5, stoppedEpoch],
      ])
      expect(markers.slice(0, 2).map((b) => b.producerId)).toEqual([producers[0]!.producerId, producers[1]!.producerId])
      await host.setReadOnly(tp.topic, false, null)
      expect((await host.describeTopics([tp.topic]))[0]).toMatchObject({ readOnly: false, mirror: null })
      await hostClient.produce(tp, [{ value: 'a client write after the failover' }])
      // Right after the reset record at 5.
      expect((await host.describePartition(tp)).logEndOffset).toBe(7)
    })

    it('keeps __mirror_state records in order, tombstones included, and answers hosted mirrors and positions from them', async () => {
      const { host, hostAsSource } = suite.fixture
      const definition = { name: MIRROR, sourceCluster: 'contract-source', destinationCluster: 'contract-destination', sourceClusterId: await suite.fixture.source.clusterId(), topics: ['mh-state'], config: {}, createdAt: 0 }
      const partition = (state: string, lastMirrorPosition: { epoch: number; offset: number } | null) => ({
        key: encodeKey({ kind: 'partition', mirror: MIRROR, topicId: 'mh-state-id', partition: 0 }),
        value: JSON.stringify({ topic: 'mh-state', partition: 0, state, lastMirrorPosition }),
      })
      const entries = [{ key: encodeKey({ kind: 'mirror', mirror: MIRROR }), value: JSON.stringify(definition) }, partition('MIRRORING', null)]
      await host.appendMirrorState(entries)
      await host.appendMirrorState([partition('STOPPED', { epoch: 2, offset: 7 })])
      expect(await host.readMirrorState()).toEqual([...entries, partition('STOPPED', { epoch: 2, offset: 7 })])
      expect(await hostAsSource.listHostedMirrors({ topics: ['mh-state'] })).toEqual([
        { name: MIRROR, sourceClusterId: definition.sourceClusterId, topics: ['mh-state'], partitionStates: { 'mh-state-0': 'STOPPED' } },
      ])
      const tp = { topic: 'mh-state', partition: 0 }
      expect(await hostAsSource.lastMirrorPositions(definition.sourceClusterId, [tp])).toEqual(new Map([['mh-state-0', { epoch: 2, offset: 7 }]]))
      expect(await hostAsSource.lastMirrorPositions('another-cluster', [tp])).toEqual(new Map())
      await host.appendMirrorState([{ key: entries[1]!.key, value: null }, { key: entries[0]!.key, value: null }])
      expect(await hostAsSource.listHostedMirrors()).toEqual([])
      expect((await host.readMirrorState()).slice(-2)).toEqual([
        { key: entries[1]!.key, value: null },
        { key: entries[0]!.key, value: null },
      ])
    })

    itWith(['stateFencing'], 'fences __mirror_state writes from a stale writer (FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH) and writes nothing of a refused append', async () => {
      const { host } = suite.fixture
      const key = encodeKey({ kind: 'partition', mirror: MIRROR, topicId: 'mh-fence-id', partition: 0 })
      const other = encodeKey({ kind: 'partition', mirror: MIRROR, topicId: 'mh-fence-id', partition: 1 })
      const record = (k: string, state: string, stateEpoch: number, leaderEpoch: number, expectedStateEpoch: number) => ({
        key: k,
        value: JSON.stringify({ topic: 'mh-fence', partition: k === key ? 0 : 1, state, stateEpoch, leaderEpoch, lastMirrorPosition: null }),
        fence: { expectedStateEpoch, leaderEpoch },
      })
      await host.appendMirrorState([record(key, 'PREPARING', 1, 5, 0)])
      await host.appendMirrorState([record(key, 'MIRRORING', 2, 5, 1)])
      const ours = async () => (await host.readMirrorState()).filter((entry) => entry.key === key || entry.key === other)
      const before = await ours()
      // A writer still at stateEpoch 1 (it missed the write of 2), at the same leader epoch.
      const stale = await errorOf(() => host.appendMirrorState([record(other, 'PREPARING', 1, 5, 0), record(key, 'PAUSING', 2, 5, 1)]))
      expect(stale).toMatchObject({ code: 'FENCED_STATE_EPOCH', details: { fenced: [{ key, code: 'FENCED_STATE_EPOCH', storedStateEpoch: 2, storedLeaderEpoch: 5 }] } })
      // A writer from an older leadership, whatever stateEpoch it names.
      const oldLeader = await errorOf(() => host.appendMirrorState([record(key, 'PAUSING', 3, 4, 2)]))
      expect(oldLeader).toMatchObject({ code: 'FENCED_LEADER_EPOCH', details: { fenced: [{ key, code: 'FENCED_LEADER_EPOCH', storedStateEpoch: 2, storedLeaderEpoch: 5 }] } })
      // Nothing of either refused append was written, not even the other partition's entry.
      expect(await ours()).toEqual(before)
      // A writer that re-read (stateEpoch 2) under a newer leadership goes through; the older one stays fenced.
      await host.appendMirrorState([record(key, 'PAUSING', 3, 6, 2)])
      expect(await errorCodeOf(() => host.appendMirrorState([record(key, 'PAUSED', 4, 5, 3)]))).toBe('FENCED_LEADER_EPOCH')
      // Unfenced writes (mirror definitions, tombstones) and -1 fields skip the checks; a tombstone forgets the key.
      await host.appendMirrorState([{ ...record(key, 'PAUSED', 4, 6, -1), fence: { expectedStateEpoch: -1, leaderEpoch: -1 } }])
      await host.appendMirrorState([{ key, value: null }])
      await host.appendMirrorState([record(key, 'PREPARING', 1, 0, 0)])
      expect((await ours()).slice(-3).map((entry) => entry.value && JSON.parse(entry.value).state)).toEqual(['PAUSED', null, 'PREPARING'])
    })

    it('commits synced group offsets only for groups without active members, and within the log', async () => {
      const { host, hostClient, source, sourceClient } = suite.fixture
      const tp = await mirroredTopic('mh-groups')
      await sourceClient.produce(tp, [{ value: 'a' }, { value: 'b' }, { value: 'c' }])
      await host.appendMirroredBatches(tp, (await fetchAll(source, tp)).records)
      expect(await host.commitSyncedGroupOffset('mh-synced', tp, 2)).toBe(true)
      const member = await hostClient.joinGroup('mh-busy')
      expect(await host.commitSyncedGroupOffset('mh-busy', tp, 1)).toBe(false)
      expect(await errorCodeOf(() => host.commitSyncedGroupOffset('mh-synced', tp, 4))).toBe('OFFSET_OUT_OF_RANGE')
      const groups = await host.listGroupOffsets()
      expect(groups.find((g) => g.groupId === 'mh-synced')).toMatchObject({ hasActiveMembers: false, offsets: [expect.objectContaining({ ...tp, offset: 2 })] })
      await member.leave()
      expect(await host.commitSyncedGroupOffset('mh-busy', tp, 1)).toBe(true)
    })

    it('advances the log start offset of a mirror topic on the mirror path', async () => {
      const { host, source, sourceClient } = suite.fixture
      const tp = await mirroredTopic('mh-log-start')
      for (const value of ['a', 'b']) await sourceClient.produce(tp, [{ value }])
      await host.appendMirroredBatches(tp, (await fetchAll(source, tp)).records)
      await host.deleteRecordsBefore(tp, 1, { bypassReadOnly: true })
      expect(await host.describePartition(tp)).toMatchObject({ logStartOffset: 1, logEndOffset: 2 })
    })
  })
}
