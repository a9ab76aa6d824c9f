import { afterEach, describe, expect, it, vi } from 'vitest'
import { ClusterError } from '@/server/cluster/errors'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

/**
 * PREPARING's lookup (KIP-1279.md §3.4) on its less travelled paths, against port fakes that answer as the test
 * says: the source no longer describing the partition, a describe that fails otherwise, an old source whose
 * newest epoch is below the last mirror epoch recorded for it, and the sentences an operator reads on a refusal.
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

const TP = { topic: 'orders', partition: 0 }

async function engine(): Promise<FakeEngine> {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 1)
  fake.source('a').produce(TP, ['1', '2'])
  fake.source('a').produce(TP, ['3'])
  return fake
}

function history() {
  return fake.engine.partitionHistory('m', 'orders', 0).map((t) => [t.to, t.error ?? null, t.retryAttempt ?? 0])
}

const notFound = () => new ClusterError('NOT_FOUND', 'orders-0 does not exist on a')
const unavailable = () => new ClusterError('SOURCE_UNAVAILABLE', 'a does not answer')

describe('PREPARING with a source partition it cannot describe (#22)', () => {
  it('fails retryably when the source does not know the partition, truncates nothing, and mirrors once it does', async () => {
    await engine()
    vi.spyOn(fake.source('a'), 'describePartition').mockRejectedValueOnce(notFound())
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: 1, failureCode: 'SOURCE_PARTITION_UNKNOWN', error: 'source partition orders-0 is not known to a yet' })
    expect(fake.engine.partitions('m')[0]!.lastTruncation).toBeNull()
    for (let i = 0; i < 4; i++) await fake.step(1_000)
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', error: null })
    expect(fake.host('b').state.log(TP).logEndOffset).toBe(3)
  })

  it('fails the lookup as an effect, retryably, when the describe fails otherwise', async () => {
    await engine()
    vi.spyOn(fake.source('a'), 'describePartition').mockRejectedValueOnce(unavailable())
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: 1, failureCode: 'EFFECT_FAILED', error: 'lookUpLastMirrorPosition: SOURCE_UNAVAILABLE: a does not answer' })
    for (let i = 0; i < 4; i++) await fake.step(1_000)
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', error: null })
  })

  it('a partition gone from the source between the two reads of the lookup starts the destination at 0; the fetch then moves it to the log start', async () => {
    await engine()
    fake.source('a').state.log(TP).deleteRecordsBefore(2)
    const describe = fake.source('a').describePartition.bind(fake.source('a'))
    // The lookup's first read finds it, its alignment input's read does not (a deletion racing the start).
    vi.spyOn(fake.source('a'), 'describePartition').mockImplementationOnce(describe).mockRejectedValueOnce(notFound())
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 0 } })
    await fake.step()
    await fake.step()
    expect(fake.host('b').state.log(TP).describe(0)).toMatchObject({ logStartOffset: 2, logEndOffset: 3 })
  })

  it('the alignment input read failing otherwise fails the lookup retryably', async () => {
    await engine()
    const describe = fake.source('a').describePartition.bind(fake.source('a'))
    vi.spyOn(fake.source('a'), 'describePartition').mockImplementationOnce(describe).mockRejectedValueOnce(unavailable())
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: 1, error: 'lookUpLastMirrorPosition: SOURCE_UNAVAILABLE: a does not answer' })
  })

  it('a destination partition the host cannot describe is read as empty; any other failure of it fails the lookup', async () => {
    await engine()
    vi.spyOn(fake.host('b'), 'describePartition').mockRejectedValueOnce(new ClusterError('NOT_FOUND', 'orders-0 is not on b'))
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    await fake.step()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 0 } })
    expect(fake.host('b').state.log(TP).logEndOffset).toBe(3)
    await fake.engine.close()

    await engine()
    vi.spyOn(fake.host('b'), 'describePartition').mockRejectedValueOnce(new ClusterError('KAFKA_STORAGE_ERROR', 'disk gone'))
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', error: 'lookUpLastMirrorPosition: KAFKA_STORAGE_ERROR: disk gone' })
  })
})

describe('a failback to an old source whose newest epoch is below the last mirror epoch (#22)', () => {
  /** b, the old source, holds 10 records of its own `epoch`; a mirrored from it up to (epoch 5, offset 12) and stopped. */
  async function failback(epoch: number): Promise<void> {
    fake = await createFakeEngine(['a', 'b'])
    fake.source('a').createTopic('orders', 1)
    const topicId = fake.source('a').state.topic('orders').topicId
    fake.source('b').state.create({ name: 'orders', partitions: 1, topicId })
    for (let elections = 0; elections < epoch; elections++) fake.source('b').electLeader(TP, 1)
    for (let i = 0; i < 10; i++) fake.source('b').produce(TP, [`b${i}`])
    fake.source('a').hostedMirrors = [{ name: 'forward', sourceClusterId: fake.source('b').id, topics: ['orders'], partitionStates: { 'orders-0': 'STOPPED' } }]
    fake.source('a').positions.set(TP, { epoch: 5, offset: 12 })
    for (let i = 0; i < 12; i++) fake.source('a').produce(TP, [`a${i}`])
  }

  for (const epoch of [2, 0]) {
    it(`keeps what the old source holds (epoch ${epoch}): its history ends at its latest epoch, not nowhere`, async () => {
      await failback(epoch)
      await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
      await fake.engine.settle()
      expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 10, removedRecords: 0 } })
      expect(history()[1]).toEqual(['MIRRORING', null, 0])
    })
  }

  for (const epoch of [5, 0]) {
    it(`an old source that has the last mirror epoch (${epoch}) is asked for that epoch's end only, not for its latest epoch too`, async () => {
      // PREPARING reads per partition: one read more is thousands more for a large failback.
      await failback(epoch)
      fake.source('a').positions.set(TP, { epoch, offset: 12 })
      const latest = vi.spyOn(fake.host('b'), 'latestEpoch')
      const ends = vi.spyOn(fake.host('b'), 'endOffsetForEpoch')
      await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
      await fake.engine.settle()
      expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 10, removedRecords: 0 } })
      expect(ends.mock.calls).toEqual([[TP, epoch]])
      expect(latest).not.toHaveBeenCalled()
    })
  }

  it('an old source that holds no record at all (no epoch) shares no history: mirrored from its log start', async () => {
    fake = await createFakeEngine(['a', 'b'])
    fake.source('a').createTopic('orders', 1)
    fake.source('b').state.create({ name: 'orders', partitions: 1, topicId: fake.source('a').state.topic('orders').topicId })
    fake.source('a').hostedMirrors = [{ name: 'forward', sourceClusterId: fake.source('b').id, topics: ['orders'], partitionStates: { 'orders-0': 'STOPPED' } }]
    fake.source('a').positions.set(TP, { epoch: 5, offset: 12 })
    for (let i = 0; i < 12; i++) fake.source('a').produce(TP, [`a${i}`])
    expect(await fake.host('b').latestEpoch(TP)).toBe(-1)
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 0, removedRecords: 0, reason: 'failback' } })
  })

  it('an "undefined" answer for an epoch the log has already passed (not as Kafka answers) leaves no common history: mirrored from scratch', async () => {
    await failback(2)
    // The host claims not to know epoch 5 although its newest epoch is 5.
    vi.spyOn(fake.host('b'), 'endOffsetForEpoch').mockResolvedValue({ leaderEpoch: -1, endOffset: -1 })
    vi.spyOn(fake.host('b'), 'latestEpoch').mockResolvedValue(5)
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 0, removedRecords: 10, reason: 'failback' } })
  })
})

describe('what PREPARING says when it refuses (#19, #20)', () => {
  /** The start's own checks see no mirror on the source; PREPARING's lookup (by topic) sees it, as in a race. */
  function hideFromTheStartChecks() {
    const source = fake.source('a')
    const list = source.listHostedMirrors.bind(source)
    vi.spyOn(source, 'listHostedMirrors').mockImplementation(async (filter) => (filter?.topics ? list(filter) : []))
  }

  it('names the loop: the mirror on the source, the topic and its state', async () => {
    await engine()
    fake.source('a').hostedMirrors = [{ name: 'back', sourceClusterId: fake.host('b').id, topics: ['orders'], partitionStates: { 'orders-0': 'MIRRORING' } }]
    hideFromTheStartChecks()
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    const [partition] = fake.engine.partitions('m')
    expect(partition).toMatchObject({ state: 'FAILED', failureCode: 'MIRROR_LOOP' })
    expect(partition!.error).toContain('mirror back on a mirrors orders from this cluster (MIRRORING)')
    // The history says where the failure was found.
    expect(fake.engine.partitionHistory('m', 'orders', 0)[1]).toMatchObject({ from: 'PREPARING', to: 'FAILED', reason: 'last mirror position looked up' })
    expect(fake.host('b').state.log(TP).logEndOffset).toBe(0)
  })

  it('names the reverse mirror that has not stopped, the partition and its state', async () => {
    await engine()
    fake.source('a').hostedMirrors = [{ name: 'back', sourceClusterId: fake.host('b').id, topics: ['orders'], partitionStates: { 'orders-0': 'PAUSED' } }]
    hideFromTheStartChecks()
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({
      state: 'FAILED',
      retryAttempt: 1,
      failureCode: 'REVERSE_MIRROR_NOT_STOPPED',
      error: 'mirror back on a has not stopped for partition orders-0 (PAUSED)',
    })
  })
})
