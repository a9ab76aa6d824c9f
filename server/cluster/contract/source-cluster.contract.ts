import 'server-only'
import { describe, expect, it } from 'vitest'
import type { FetchPartitionRequest, FetchPartitionResult, TopicPartition } from '../ports'
import { errorCodeOf, summarizeBatches, type ContractFactory } from './contract'
import { contractSuite } from './suite'

const MIB = 1 << 20

function request(tp: TopicPartition, fetchOffset: number, lastFetchedEpoch = -1, maxBytes = MIB): FetchPartitionRequest {
  return { ...tp, fetchOffset, lastFetchedEpoch, maxBytes }
}

function expectOk(result: FetchPartitionResult | undefined): Extract<FetchPartitionResult, { ok: true }> {
  if (!result?.ok) throw new Error(`expected a successful fetch, got ${JSON.stringify(result)}`)
  return result
}

/**
 * The SourceCluster behaviours every implementation owes the mirror fetcher (DESIGN.md §2.1), parameterised
 * by a factory: the embedded cluster runs it now, the Kafka adapter and the engine's fakes are held to it.
 * One fixture per suite; every behaviour works on a topic of its own.
 */
export function describeSourceClusterContract(factory: ContractFactory): void {
  describe(`SourceCluster contract: ${factory.name}`, () => {
    const suite = contractSuite(factory)
    const itWith = suite.itWith

    it('describes topics with partitions, offsets and only the dynamic configs set; leaves out unknown topics', async () => {
      const { source, sourceClient } = suite.fixture
      await sourceClient.createTopic('sc-describe', { partitions: 2, configs: { 'retention.ms': '3600000' } })
      const tp = { topic: 'sc-describe', partition: 0 }
      await sourceClient.produce(tp, [{ value: 'a' }, { value: 'b' }])
      const topics = await source.describeTopics(['sc-describe', 'sc-missing'])
      expect(topics.map((t) => t.name)).toEqual(['sc-describe'])
      const [topic] = topics
      expect(topic).toMatchObject({ configs: { 'retention.ms': '3600000' }, readOnly: false, mirror: null })
      expect(topic!.topicId).toEqual(expect.any(String))
      expect(topic!.topicId.length).toBeGreaterThan(0)
      expect(topic!.partitions.map((p) => [p.partition, p.logStartOffset, p.highWatermark, p.lastStableOffset, p.logEndOffset])).toEqual([
        [0, 0, 2, 2, 2],
        [1, 0, 0, 0, 0],
      ])
      expect(topic!.partitions[0]!.leader).toBeGreaterThanOrEqual(0)
      expect(await source.describePartition(tp)).toEqual(topic!.partitions[0])
      expect(await errorCodeOf(() => source.describePartition({ topic: 'sc-missing', partition: 0 }))).toBe('NOT_FOUND')
      const clusterId = await source.clusterId()
      expect(clusterId.length).toBeGreaterThan(0)
      expect(await source.clusterId()).toBe(clusterId)
    })

    it('fetches whole batches at their offsets up to the high watermark, and nothing at the high watermark', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-fetch', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      await sourceClient.produce(tp, [{ value: '0' }, { value: '1' }])
      await sourceClient.produce(tp, [{ value: '2' }, { value: '3' }, { value: '4' }])
      const [all] = await source.fetch([request(tp, 0)], { maxBytes: MIB })
      const fetched = expectOk(all)
      expect(summarizeBatches(fetched.records).map((b) => [b.baseOffset, b.lastOffset, b.type])).toEqual([
        [0, 1, 'DATA'],
        [2, 4, 'DATA'],
      ])
      expect(fetched).toMatchObject({ highWatermark: 5, lastStableOffset: 5, logStartOffset: 0, divergingEpoch: null, nextRecordTimestamp: null })
      const [fromTwo] = await source.fetch([request(tp, 2)], { maxBytes: MIB })
      expect(summarizeBatches(expectOk(fromTwo).records).map((b) => b.baseOffset)).toEqual([2])
      const epoch = summarizeBatches(fetched.records).at(-1)!.leaderEpoch
      const [atEnd] = await source.fetch([request(tp, 5, epoch)], { maxBytes: MIB })
      expect(expectOk(atEnd)).toMatchObject({ highWatermark: 5, divergingEpoch: null })
      expect(expectOk(atEnd).records.byteLength).toBe(0)
    })

    it('returns at least one whole batch however small the byte budget, and the next record timestamp when it stops short', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-budget', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      await sourceClient.produce(tp, [{ value: 'first batch' }, { value: 'of two records' }])
      await sourceClient.produce(tp, [{ value: 'second batch' }])
      const [result] = await source.fetch([request(tp, 0, -1, 1)], { maxBytes: 1 })
      const fetched = expectOk(result)
      expect(summarizeBatches(fetched.records).map((b) => [b.baseOffset, b.lastOffset])).toEqual([[0, 1]])
      expect(fetched.nextRecordTimestamp).toEqual(expect.any(Number))
    })

    it('answers one result per request, in request order, with errors per partition', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-errors', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      await sourceClient.produce(tp, [{ value: 'x' }])
      const results = await source.fetch([request({ topic: 'sc-no-such-topic', partition: 0 }, 0), request(tp, 99), request(tp, 0)], { maxBytes: MIB })
      expect(results.map((r) => [r.topic, r.partition, r.ok ? 'ok' : r.error.code])).toEqual([
        ['sc-no-such-topic', 0, 'UNKNOWN_TOPIC_OR_PARTITION'],
        [tp.topic, 0, 'OFFSET_OUT_OF_RANGE'],
        [tp.topic, 0, 'ok'],
      ])
      expect(results[1]).toMatchObject({ logStartOffset: 0, logEndOffset: 1 })
    })

    it('returns control batches and aborted data (read_uncommitted); the last stable offset stops at the first open transaction', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-transactions', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      const committed = await sourceClient.transactionalProducer('sc-committed')
      const aborted = await sourceClient.transactionalProducer('sc-aborted')
      const open = await sourceClient.transactionalProducer('sc-open')
      await committed.send(tp, [{ value: 'kept' }])
      await committed.commit()
      await aborted.send(tp, [{ value: 'dropped' }])
      await aborted.abort()
      await open.send(tp, [{ value: 'pending' }])
      await sourceClient.produce(tp, [{ value: 'plain' }])
      const [result] = await source.fetch([request(tp, 0)], { maxBytes: MIB })
      const fetched = expectOk(result)
      expect(summarizeBatches(fetched.records).map((b) => [b.baseOffset, b.type, b.producerId, b.transactional])).toEqual([
        [0, 'DATA', committed.producerId, true],
        [1, 'COMMIT', committed.producerId, true],
        [2, 'DATA', aborted.producerId, true],
        [3, 'ABORT', aborted.producerId, true],
        [4, 'DATA', open.producerId, true],
        [5, 'DATA', expect.any(Number), false],
      ])
      expect(fetched).toMatchObject({ highWatermark: 6, lastStableOffset: 4 })
      expect(await source.describePartition(tp)).toMatchObject({ highWatermark: 6, lastStableOffset: 4 })
      await open.commit()
      expect(await source.describePartition(tp)).toMatchObject({ highWatermark: 7, lastStableOffset: 7 })
    })

    it('answers OffsetsForLeaderEpoch: the latest epoch ends at the log end; -1 and epochs above every one are undefined', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-epoch-end', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      await sourceClient.produce(tp, [{ value: 'a' }, { value: 'b' }])
      const [result] = await source.fetch([request(tp, 0)], { maxBytes: MIB })
      const epoch = summarizeBatches(expectOk(result).records)[0]!.leaderEpoch
      expect(await source.endOffsetForEpoch(tp, epoch)).toEqual({ leaderEpoch: epoch, endOffset: 2 })
      expect(await source.endOffsetForEpoch(tp, -1)).toEqual({ leaderEpoch: -1, endOffset: -1 })
      expect(await source.endOffsetForEpoch(tp, epoch + 100)).toEqual({ leaderEpoch: -1, endOffset: -1 })
    })

    itWith(['leaderElection'], 'ends an older epoch where the next began, and tells a fetcher whose history went past it where it diverges', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-epochs', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      await sourceClient.produce(tp, [{ value: 'a' }, { value: 'b' }])
      const first = (await source.describePartition(tp)).leaderEpoch
      await sourceClient.electAnotherLeader!(tp)
      const second = (await source.describePartition(tp)).leaderEpoch
      expect(second).toBeGreaterThan(first)
      await sourceClient.produce(tp, [{ value: 'c' }])
      expect(await source.endOffsetForEpoch(tp, first)).toEqual({ leaderEpoch: first, endOffset: 2 })
      expect(await source.endOffsetForEpoch(tp, second)).toEqual({ leaderEpoch: second, endOffset: 3 })
      const [consistent, diverged] = await source.fetch([request(tp, 2, first), request(tp, 3, first)], { maxBytes: MIB })
      expect(expectOk(consistent).divergingEpoch).toBeNull()
      expect(summarizeBatches(expectOk(consistent).records).map((b) => [b.baseOffset, b.leaderEpoch])).toEqual([[2, second]])
      expect(expectOk(diverged).divergingEpoch).toEqual({ leaderEpoch: first, endOffset: 2 })
      expect(expectOk(diverged).records.byteLength).toBe(0)
    })

    itWith(['uncleanElection'], 'after an unclean election, tells a fetcher holding the lost records where its history diverges', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-unclean', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      for (const value of ['a', 'b', 'c']) await sourceClient.produce(tp, [{ value }])
      const epoch = (await source.describePartition(tp)).leaderEpoch
      await sourceClient.electLaggingReplicaUncleanly!(tp, 1)
      const after = await source.describePartition(tp)
      expect(after.leaderEpoch).toBeGreaterThan(epoch)
      expect(after.logEndOffset).toBe(2)
      const [result] = await source.fetch([request(tp, 3, epoch)], { maxBytes: MIB })
      expect(expectOk(result).divergingEpoch).toEqual({ leaderEpoch: epoch, endOffset: 2 })
    })

    it('moves the log start offset with DeleteRecords; a fetch below it is out of range', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-log-start', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      for (const value of ['a', 'b', 'c']) await sourceClient.produce(tp, [{ value }])
      await sourceClient.deleteRecords(tp, 2)
      expect(await source.describePartition(tp)).toMatchObject({ logStartOffset: 2, logEndOffset: 3 })
      const [below, atStart] = await source.fetch([request(tp, 0), request(tp, 2)], { maxBytes: MIB })
      expect(below).toMatchObject({ ok: false, error: { code: 'OFFSET_OUT_OF_RANGE' }, logStartOffset: 2 })
      expect(expectOk(atStart).logStartOffset).toBe(2)
      expect(summarizeBatches(expectOk(atStart).records).map((b) => b.baseOffset)).toEqual([2])
    })

    it('lists committed group offsets and whether each group has active members', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-groups', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      await sourceClient.produce(tp, [{ value: 'a' }, { value: 'b' }, { value: 'c' }])
      await sourceClient.commitGroupOffset('sc-idle', tp, 2)
      const member = await sourceClient.joinGroup('sc-busy')
      const groupsNow = await source.listGroupOffsets()
      expect(groupsNow.find((g) => g.groupId === 'sc-idle')).toMatchObject({ hasActiveMembers: false, offsets: [expect.objectContaining({ ...tp, offset: 2 })] })
      expect(groupsNow.find((g) => g.groupId === 'sc-busy')).toMatchObject({ hasActiveMembers: true })
      await member.leave()
      expect((await source.listGroupOffsets()).find((g) => g.groupId === 'sc-busy')?.hasActiveMembers ?? false).toBe(false)
    })

    itWith(['heldFetch'], 'holds a fetch with nothing to return until records arrive, or until it is aborted', async () => {
      const { source, sourceClient } = suite.fixture
      const tp = { topic: 'sc-held', partition: 0 }
      await sourceClient.createTopic(tp.topic, { partitions: 1 })
      const started = Date.now()
      const held = source.fetch([request(tp, 0)], { maxBytes: MIB, maxWaitMs: 30_000 })
      await new Promise((resolve) => setTimeout(resolve, 50))
      await sourceClient.produce(tp, [{ value: 'wakes the fetch' }])
      const [woken] = await held
      expect(summarizeBatches(expectOk(woken).records).map((b) => b.baseOffset)).toEqual([0])
      const controller = new AbortController()
      const aborted = source.fetch([request(tp, 1)], { maxBytes: MIB, maxWaitMs: 30_000, signal: controller.signal })
      setTimeout(() => controller.abort(), 50)
      const [quiet] = await aborted
      expect(expectOk(quiet).records.byteLength).toBe(0)
      expect(Date.now() - started).toBeLessThan(20_000)
    })

    it('hosts no mirrors and knows no last mirror positions before any mirror writes its state', async () => {
      expect(await suite.fixture.source.listHostedMirrors()).toEqual([])
      expect(await suite.fixture.source.lastMirrorPositions('any-cluster', [{ topic: 'sc-fetch', partition: 0 }])).toEqual(new Map())
    })
  })
}
