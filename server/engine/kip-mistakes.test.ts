import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import type { HostedMirror } from '@/server/cluster/ports'
import { createEngineHarness, type EngineHarness } from './testing/harness'
import { mirrorOffsets0To2ThenPause, WORKED_EXAMPLE_CLUSTERS, WORKED_EXAMPLE_TOPIC } from './testing/worked-example'

/**
 * One test per deliberate mistake of issue #14's table: each fails when that mistake is made in the
 * engine (see docs/kip-1279.md). The other tests of these items passed with the mistakes in place,
 * because the situation that exercises the behaviour never arose in them.
 */

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }
const TP = { topic: 't', partition: 0 }

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function twoClusters(options: Parameters<typeof createEngineHarness>[0]['clusters'] = { a: {}, b: {} }): Promise<EngineHarness> {
  harness = await createEngineHarness({ clusters: options })
  return harness
}

async function values(cluster: EmbeddedCluster, topic = 't') {
  return (await cluster.readRecords(topic, 0, { limit: 1_000 })).records.map((record) => record.value)
}

async function produce(cluster: EmbeddedCluster, ...records: string[]) {
  await cluster.produce('t', { partition: 0, records: records.map((value) => ({ value })) })
}

function states(h: EngineHarness, mirror: string) {
  return h.engine.partitions(mirror).map((partition) => partition.state)
}

describe('STOPPING (#24)', () => {
  it('#24 raises the leader epoch above the last mirror epoch when the destination is not above it yet', async () => {
    // A failback mirror stopped before it fetched anything: the old source's log ends with batches it wrote
    // itself, at its current leader epoch. Every other failover already has the destination epoch above
    // the mirrored batches (the proactive bump keeps a gap of more than 3), so the step is skipped there.
    const h = await twoClusters(WORKED_EXAMPLE_CLUSTERS)
    await mirrorOffsets0To2ThenPause(h)
    await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    await h.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [WORKED_EXAMPLE_TOPIC] })
    const tp = { topic: WORKED_EXAMPLE_TOPIC, partition: 0 }
    const before = await h.cluster('a').describePartition(tp)
    expect(await h.cluster('a').latestEpoch(tp)).toBe(before.leaderEpoch)

    const finished = await h.engine.awaitOperation((await h.engine.failover('back', { confirm: 'back' })).operation.id)
    expect(finished.status).toBe('succeeded')
    const [partition] = h.engine.partitions('back')
    expect(partition).toMatchObject({ state: 'STOPPED', lastMirrorPosition: { epoch: before.leaderEpoch, offset: 3 } })
    const after = await h.cluster('a').describePartition(tp)
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch)
    // The truncation to 3 removed 4001's COMMIT: both transactions are open again and get their ABORTs.
    const appended = (await h.cluster('a').readRecords(WORKED_EXAMPLE_TOPIC, 0, { limit: 100 })).records.slice(3)
    expect(appended.map((record) => [record.offset, record.type, record.producerId])).toEqual([
      [3, 'ABORT', 4001],
      [4, 'ABORT', 4002],
      [5, 'MIRROR_PID_RESET', null],
    ])
    for (const record of appended) expect(record.leaderEpoch).toBeGreaterThan(before.leaderEpoch)
  })
})

describe('PREPARING (#19, #20, #22)', () => {
  it('#22 truncation reaches every replica: after failback each replica of the old source holds the new source log', async () => {
    const h = await twoClusters(WORKED_EXAMPLE_CLUSTERS)
    await mirrorOffsets0To2ThenPause(h)
    await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    await h.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [WORKED_EXAMPLE_TOPIC] })
    const tp = { topic: WORKED_EXAMPLE_TOPIC, partition: 0 }
    // Right after PREPARING, before any replication round could repair a follower: every replica is cut at 3.
    expect(h.engine.partitions('back')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 3, removedRecords: 3 } })
    const { replicas: cut } = await h.cluster('a').describePartition(tp)
    expect(cut.map((brokerId) => [brokerId, h.cluster('a').replicaLog(tp, brokerId)!.logEndOffset])).toEqual(cut.map((brokerId) => [brokerId, 3]))
    await h.run(8)
    expect(h.engine.partitions('back')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 6 })
    const newSource = h.cluster('b').replicaLog(tp, (await h.cluster('b').describePartition(tp)).leader)!
    const expected = (await newSource.read(0, 1 << 20)).records
    const { replicas } = await h.cluster('a').describePartition(tp)
    expect(replicas).toHaveLength(3)
    for (const brokerId of replicas) {
      const held = (await h.cluster('a').replicaLog(tp, brokerId)!.read(0, 1 << 20)).records
      expect({ brokerId, identical: Buffer.compare(held, expected) === 0 }).toEqual({ brokerId, identical: true })
    }
  })

  /**
   * The source's mirror directory as it looks when the reverse mirror appears between the start's own
   * check and PREPARING: the full listing the start checks is the one from before, the per-topic lookup
   * PREPARING makes is current.
   */
  function raceDirectory(h: EngineHarness, clusterName: string) {
    const cluster = h.cluster(clusterName)
    const current = cluster.listHostedMirrors.bind(cluster)
    cluster.listHostedMirrors = async (filter?: { topics?: string[] }): Promise<HostedMirror[]> => (filter?.topics ? current(filter) : [])
  }

  it('#19 PREPARING itself detects a mirror loop that appeared after the start was checked: FAILED, nothing truncated', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produce(a, '1', '2')
    await h.engine.createMirror({ name: 'forward', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(2)
    raceDirectory(h, 'b')
    await h.engine.createMirror({ name: 'backward', sourceCluster: 'b', destinationCluster: 'a', topics: ['t'] })
    await h.run(2)
    const [partition] = h.engine.partitions('backward')
    expect(partition).toMatchObject({ state: 'FAILED', lastTruncation: null })
    expect(partition!.error).toContain('mirror loop')
    // Retried with backoff (retryable in the prototype), never past PREPARING.
    expect(new Set(h.engine.partitionHistory('backward', 't', 0).map((t) => t.to))).toEqual(new Set(['PREPARING', 'FAILED']))
    expect(await values(a)).toEqual(['1', '2'])
    expect(h.engine.partitions('forward')[0]!.state).toBe('MIRRORING')
  })

  it('#20 PREPARING itself refuses (retryably) while the reverse mirror is not STOPPED, without truncating', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produce(a, '1', '2')
    await h.engine.createMirror({ name: 'forward', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(2)
    await h.engine.pauseTopics('forward')
    await h.run(1)
    await produce(a, '3')
    raceDirectory(h, 'b')
    await h.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: ['t'] })
    await h.run(1, 10)
    const [partition] = h.engine.partitions('back')
    expect(partition).toMatchObject({ state: 'FAILED', previousState: 'PREPARING', lastTruncation: null })
    expect(partition!.retryAttempt).toBeGreaterThanOrEqual(1)
    expect(partition!.error).toContain('has not stopped')
    expect(await values(a)).toEqual(['1', '2', '3'])
  })
})

describe('epochs (#14)', () => {
  it('#14 a destination leadership change while mirroring adds no epoch: the epochs of later mirrored batches still end at the log end', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await produce(a, '1')
    await produce(a, '2')
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(3)
    const before = await b.describePartition(TP)
    // A clean election on the destination, after records of source epoch 0 were mirrored.
    await b.electLeader(TP, before.replicas.find((id) => id !== before.leader)!)
    expect((await b.describePartition(TP)).leaderEpoch).toBe(before.leaderEpoch + 1)
    await produce(a, '3')
    await produce(a, '4')
    await h.run(3)
    const after = await b.describePartition(TP)
    expect(after.logEndOffset).toBe(4)
    // The destination answers for the source's epoch as the source does: it ends at the log end. A cache holding
    // the election's epoch would end it at offset 2, where a failback (the destination as the new source) would
    // tell the old source its history diverges, and a follower would cut back what it already holds.
    expect(await b.endOffsetForEpoch(TP, 0)).toEqual(await a.endOffsetForEpoch(TP, 0))
    expect(await b.endOffsetForEpoch(TP, 0)).toEqual({ leaderEpoch: 0, endOffset: 4 })
    for (const replica of after.replicas) expect(b.replicaLog(TP, replica)!.epochEntries()).toEqual([{ epoch: 0, startOffset: 0 }])
  })
})

describe('fetch answers in flight (#5, #25)', () => {
  it('#25 an answer that arrives after the fetcher was removed (a pause meanwhile) is dropped: nothing appended while PAUSED', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produce(a, '1')
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(3)
    expect(await values(b)).toEqual(['1'])
    await produce(a, '2')
    // The round asks the source; the pause takes the partition before the answer is applied.
    const round = h.engine.tick()
    await h.engine.pauseTopics('m')
    await round
    await h.engine.settle()
    expect(states(h, 'm')).toEqual(['PAUSED'])
    expect(await values(b)).toEqual(['1'])
    await h.engine.resumeTopics('m')
    await h.run(3)
    expect(await values(b)).toEqual(['1', '2'])
  })
})

describe('unclean leader election (#38)', () => {
  it('#38 ULE_LOG_TRUNCATION waits for every destination replica before mirroring again', async () => {
    const h = await twoClusters({ a: {}, b: { config: { replicaLagTimeMaxMs: 1_000 } } })
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await produce(a, '1')
    await produce(a, '2')
    await produce(a, '3')
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await b.alterTopicConfigs('t', { [MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION]: 'true' })
    await h.run(3)
    expect(await values(b)).toEqual(['1', '2', '3'])
    const { leader, replicas } = await b.describePartition(TP)
    const follower = replicas.find((id) => id !== leader)!
    await b.stopBroker(follower)
    await h.run(3, 1_000)
    expect((await b.describePartition(TP)).isr).not.toContain(follower)

    await a.electLaggingReplicaUncleanly(TP, 1)
    await produce(a, '3-new')
    await h.run(4, 1_000)
    expect(h.engine.partitions('m')[0]!.state).toBe('ULE_LOG_TRUNCATION')
    expect(await values(b)).toEqual(['1', '2'])

    await b.startBroker(follower)
    await h.run(6, 1_000)
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', offsetLag: 0 })
    expect(await values(b)).toEqual(['1', '2', '3-new'])
  })
})

describe('syncs (#5, #17, #33, #35)', () => {
  it('#17 the periodic sync bumps the destination epoch from source metadata, with no batch fetched', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produce(a, '1')
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await h.run(3, 1_000)
    const destinationEpoch = (await h.cluster('b').describePartition(TP)).leaderEpoch
    // A source election that writes nothing: only the source's metadata shows the new epoch.
    await a.bumpLeaderEpoch(TP, destinationEpoch - 1)
    await h.run(3, 1_000)
    expect((await h.cluster('b').describePartition(TP)).leaderEpoch).toBe(destinationEpoch - 1 + 10)
    expect(h.engine.partitionHistory('m', 't', 0).map((t) => t.to)).toEqual(['PREPARING', 'MIRRORING'])
    expect(await values(h.cluster('b'))).toEqual(['1'])
  })

  it('#33 a mirrored topic that starts matching topics.exclude is stopped', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.createTopic({ name: 'kept', partitions: 1, replicationFactor: 1 })
    await produce(a, '1')
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t', 'kept'], config: FAST_SYNC })
    await h.run(3, 1_000)
    await h.engine.updateMirrorConfig('m', { 'topics.exclude': ['__.*', 't'] })
    await h.run(3, 1_000)
    expect(h.engine.partitions('m').map((p) => [p.topic, p.state])).toEqual([
      ['kept', 'MIRRORING'],
      ['t', 'STOPPED'],
    ])
    await expect(h.cluster('b').produce('t', { records: [{ value: 'writable' }] })).resolves.toBeDefined()
  })

  it('#35 a changed source cluster id fails every partition of the mirror for good', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await produce(a, '1')
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await h.run(3, 1_000)
    // The address now reaches another cluster: same name, same topic, a different cluster id.
    await a.close()
    const replacement = await EmbeddedCluster.open(path.join(h.root, 'a-replacement'), { name: 'a', brokers: 3, clock: h.clock })
    h.clusters.set('a', replacement)
    await replacement.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    expect(await replacement.clusterId()).not.toBe(h.engine.getMirror('m').sourceClusterId)
    await h.run(3, 1_000)
    expect(h.engine.partitions('m').map((p) => [p.state, p.retryAttempt])).toEqual([
      ['FAILED', -1],
      ['FAILED', -1],
    ])
    expect(h.engine.partitions('m')[0]!.error).toContain('cluster ID')
    await h.run(10, 1_000)
    expect(states(h, 'm')).toEqual(['FAILED', 'FAILED'])
    expect(await values(h.cluster('b'))).toEqual(['1'])
  })

  it('#5 while PAUSED no config or group offset sync touches the topic; after resume they follow', async () => {
    const h = await twoClusters()
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1, configs: { 'retention.ms': '1000000' } })
    await produce(a, '1', '2')
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await h.run(3, 1_000)
    await h.engine.pauseTopics('m')
    await h.run(1)
    await a.alterTopicConfigs('t', { 'retention.ms': '2000000' })
    await a.commitOffsets('idle', [{ ...TP, offset: 2 }])
    await h.run(5, 1_000)
    expect(states(h, 'm')).toEqual(['PAUSED'])
    expect((await b.describeTopic('t')).configs['retention.ms']).toBe('1000000')
    expect((await b.listGroupOffsets()).find((group) => group.groupId === 'idle')).toBeUndefined()
    await h.engine.resumeTopics('m')
    await h.run(3, 1_000)
    expect((await b.describeTopic('t')).configs['retention.ms']).toBe('2000000')
    expect((await b.listGroupOffsets()).find((group) => group.groupId === 'idle')?.offsets).toEqual([expect.objectContaining({ offset: 2 })])
  })
})
