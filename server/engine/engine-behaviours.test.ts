// Over 400 lines on purpose: the engine's behaviours of KIP-1279 one by one over embedded clusters, each a short scenario sharing one harness.
import { afterEach, describe, expect, it } from 'vitest'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { EngineError } from './errors'
import { createEngineHarness, type EngineHarness } from './testing/harness'

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

async function twoClusters(): Promise<EngineHarness> {
  harness = await createEngineHarness({ clusters: { a: {}, b: {} } })
  return harness
}

async function produceValues(cluster: EmbeddedCluster, topic: string, values: string[], partition = 0) {
  await cluster.produce(topic, { partition, records: values.map((value) => ({ value })) })
}

async function recordsOf(cluster: EmbeddedCluster, topic: string, partition = 0) {
  return (await cluster.readRecords(topic, partition, { limit: 10_000 })).records.map(({ offset, type, value, leaderEpoch }) => ({ offset, type, value, leaderEpoch }))
}

async function expectEngineError(action: Promise<unknown>, code: string) {
  await expect(action).rejects.toSatisfy((error: unknown) => error instanceof EngineError && error.code === code)
}

async function mirrorState(cluster: EmbeddedCluster) {
  return (await cluster.readMirrorState()).length
}

describe('mirroring data path', () => {
  it('#10 #13 destination offsets, epochs and values equal the source and lag reaches 0', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 'events', partitions: 2, replicationFactor: 3 })
    await produceValues(a, 'events', ['a', 'b', 'c'], 0)
    await produceValues(a, 'events', ['d'], 1)
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['events'] })
    await harness.run(4)
    for (const partition of [0, 1]) {
      expect(await recordsOf(harness.cluster('b'), 'events', partition)).toEqual(await recordsOf(a, 'events', partition))
    }
    const snapshot = harness.engine.partitions('m')
    expect(snapshot.map((p) => [p.partition, p.state, p.offsetLag])).toEqual([
      [0, 'MIRRORING', 0],
      [1, 'MIRRORING', 0],
    ])
    expect(harness.engine.mirrorSummary('m')).toMatchObject({ mirroredRecords: 4, partitionsByState: { MIRRORING: 2 } })
  })

  it('#8 #9 a mirror topic refuses client writes until STOPPED, then accepts them', async () => {
    await twoClusters()
    await harness.cluster('a').createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(2)
    await expect(harness.cluster('b').produce('t', { records: [{ value: 'x' }] })).rejects.toMatchObject({ code: 'TOPIC_READ_ONLY' })
    const { operation } = await harness.engine.failover('m', { confirm: 'm' })
    await harness.engine.awaitOperation(operation.id)
    await expect(harness.cluster('b').produce('t', { records: [{ value: 'x' }] })).resolves.toBeDefined()
  })

  it('#4 #5 pause stops appending and syncing; resume continues from the log end without truncation', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await produceValues(a, 't', ['1', '2'])
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(3)
    await harness.engine.pauseTopics('m')
    await harness.run(1)
    expect(harness.engine.partitions('m')[0]!.state).toBe('PAUSED')
    await produceValues(a, 't', ['3', '4'])
    await harness.run(20, 200)
    expect((await recordsOf(harness.cluster('b'), 't')).length).toBe(2)
    await harness.engine.resumeTopics('m')
    await harness.run(2)
    const [partition] = harness.engine.partitions('m')
    expect(partition).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 4, lastTruncation: { offset: 0, removedRecords: 0 } })
    expect(harness.engine.partitionHistory('m', 't', 0).map((t) => t.to)).toEqual(['PREPARING', 'MIRRORING', 'PAUSING', 'PAUSED', 'MIRRORING'])
  })
})

describe('leader epochs', () => {
  it('#15 #16 a batch above the destination epoch is fenced, the epoch is bumped to source + 10, then the batch is appended', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await produceValues(a, 't', ['1'])
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(3)
    const before = harness.engine.partitions('m')[0]!.destinationLeaderEpoch
    await a.bumpLeaderEpoch({ topic: 't', partition: 0 }, before + 5)
    const sourceEpoch = (await a.describeTopic('t')).partitions[0]!.leaderEpoch
    expect(sourceEpoch).toBeGreaterThan(before)
    await produceValues(a, 't', ['2'])
    await harness.run(3)
    const transitions = harness.engine.partitionHistory('m', 't', 0).map((t) => t.to)
    expect(transitions).toEqual(['PREPARING', 'MIRRORING', 'EPOCH_FENCING', 'MIRRORING'])
    const [partition] = harness.engine.partitions('m')
    expect(partition!.destinationLeaderEpoch).toBeGreaterThanOrEqual(sourceEpoch + 10)
    const records = await recordsOf(harness.cluster('b'), 't')
    expect(records.map((r) => r.value)).toEqual(['1', '2'])
    expect(Math.max(...records.map((r) => r.leaderEpoch))).toBeLessThanOrEqual(partition!.destinationLeaderEpoch)
  })

  it('#17 a batch epoch within 3 of the destination epoch bumps it proactively without leaving MIRRORING', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await produceValues(a, 't', ['1'])
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(3)
    const destinationEpoch = harness.engine.partitions('m')[0]!.destinationLeaderEpoch
    await a.bumpLeaderEpoch({ topic: 't', partition: 0 }, destinationEpoch - 2)
    await produceValues(a, 't', ['2'])
    await harness.run(3)
    expect(harness.engine.partitionHistory('m', 't', 0).map((t) => t.to)).toEqual(['PREPARING', 'MIRRORING'])
    expect(harness.engine.partitions('m')[0]!.destinationLeaderEpoch).toBe(destinationEpoch - 2 + 10)
    expect((await recordsOf(harness.cluster('b'), 't')).map((r) => r.value)).toEqual(['1', '2'])
  })
})

describe('unclean leader election at the source', () => {
  /** Leader keeps two records its followers never got, then an out-of-sync follower is elected: history diverges at 3. */
  async function divergeSource(flag: boolean) {
    harness = await createEngineHarness({ clusters: { a: { config: { replicaLagTimeMaxMs: 1_000 } }, b: {} } })
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await produceValues(a, 't', ['1', '2', '3'])
    const destinationConfigs: Record<string, string> = flag ? { [MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION]: 'true' } : {}
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    if (flag) await harness.cluster('b').alterTopicConfigs('t', destinationConfigs)
    await harness.run(3)
    const { leader, replicas } = (await a.describeTopic('t')).partitions[0]!
    const followers = replicas.filter((id) => id !== leader)
    for (const follower of followers) await a.stopBroker(follower)
    await harness.run(3, 1_000)
    expect((await a.describeTopic('t')).partitions[0]!.isr).toEqual([leader])
    await produceValues(a, 't', ['4-old', '5-old'])
    await harness.run(3)
    expect((await recordsOf(harness.cluster('b'), 't')).map((r) => r.value)).toEqual(['1', '2', '3', '4-old', '5-old'])
    await a.stopBroker(leader)
    await a.startBroker(followers[0]!)
    await a.electLeader({ topic: 't', partition: 0 }, followers[0]!, { unclean: true })
    await produceValues(a, 't', ['4-new'])
  }

  it('#37 without mirror.support.unclean.leader.election the partition fails for good and nothing is truncated', async () => {
    await divergeSource(false)
    await harness.run(3)
    const [partition] = harness.engine.partitions('m')
    expect(partition).toMatchObject({ state: 'FAILED', retryAttempt: -1 })
    expect(partition!.error).toContain('unclean leader election')
    // What diverged, as the API answers it: the new leader's history ends at 3, so 4-old and 5-old would be cut.
    expect(partition).toMatchObject({ failureCode: 'LOG_DIVERGED', divergence: { offset: 3, truncateTo: 3, recordsToCut: 2, logEndOffset: 5 } })
    expect((await recordsOf(harness.cluster('b'), 't')).map((r) => r.value)).toEqual(['1', '2', '3', '4-old', '5-old'])
    await harness.run(20, 1_000)
    expect(harness.engine.partitions('m')[0]!.state).toBe('FAILED')
  })

  it('#38 with it, ULE_LOG_TRUNCATION cuts the divergent tail and mirroring resumes to an identical log', async () => {
    await divergeSource(true)
    await harness.run(4)
    expect(harness.engine.partitionHistory('m', 't', 0).map((t) => t.to)).toEqual(['PREPARING', 'MIRRORING', 'ULE_LOG_TRUNCATION', 'MIRRORING'])
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', lastTruncation: { offset: 3, removedRecords: 2 } })
    expect(await recordsOf(harness.cluster('b'), 't')).toEqual(await recordsOf(harness.cluster('a'), 't'))
  })
})

describe('failures and retries', () => {
  it('#6 #7 a source outage fails only the mirror partitions, retries with backoff, and a fetch after it clears the error', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.createTopic({ name: 'local', partitions: 1, replicationFactor: 1 })
    await harness.cluster('b').createTopic({ name: 'local', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 't', ['1'])
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(3)
    const [leader] = (await a.describeTopic('t')).partitions.map((p) => p.leader)
    await a.stopBroker(leader!)
    await harness.run(1)
    let [partition] = harness.engine.partitions('m')
    expect(partition).toMatchObject({ state: 'FAILED', previousState: 'MIRRORING', retryAttempt: 1 })
    // The next attempt is due after at most the initial backoff (100 ms, full jitter).
    await harness.run(2, 100)
    partition = harness.engine.partitions('m')[0]
    expect(partition!.retryAttempt).toBeGreaterThanOrEqual(2)
    // A destination topic outside the mirror keeps working.
    await expect(harness.cluster('b').produce('local', { records: [{ value: 'ok' }] })).resolves.toBeDefined()
    await a.startBroker(leader!)
    await produceValues(a, 't', ['2'])
    await harness.run(40, 1_000)
    partition = harness.engine.partitions('m')[0]
    expect(partition).toMatchObject({ state: 'MIRRORING', retryAttempt: 0, error: null, destinationLogEndOffset: 2 })
    // The history keeps each failure's message and attempt, which the partition itself forgets once healthy.
    const history = harness.engine.partitionHistory('m', 't', 0)
    const failures = history.filter((transition) => transition.to === 'FAILED')
    expect(failures.length).toBeGreaterThanOrEqual(1)
    expect(failures[0]).toMatchObject({ from: 'MIRRORING', retryAttempt: 1, error: expect.any(String) })
    expect(history.filter((transition) => transition.to !== 'FAILED').every((transition) => transition.error === undefined)).toBe(true)
    expect(history.slice(0, 2).every((transition) => transition.retryAttempt === undefined)).toBe(true)
  })

  it('#6 recover returns a non-retryable FAILED partition to its previous state', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(2)
    await a.deleteTopic('t')
    await harness.run(4, 1_000)
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: -1, error: 'The source topic is deleted.' })
    const writesBefore = await mirrorState(harness.cluster('b'))
    // Resume needs PAUSED (a pause would be accepted: the table lets a partition that failed while mirroring pause).
    await expectEngineError(harness.engine.resumeTopics('m'), 'INVALID_MIRROR_STATE')
    expect(await mirrorState(harness.cluster('b'))).toBe(writesBefore)
    await harness.engine.recoverTopics('m')
    expect(harness.engine.partitions('m')[0]!.state).toBe('MIRRORING')
  })
})

describe('preparing, loops and failback preconditions', () => {
  it('#19 a mirror back to a cluster that is still mirroring from us is refused as a loop, and nothing changes', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 't', ['1', '2'])
    await harness.engine.createMirror({ name: 'forward', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(2)
    const before = await recordsOf(a, 't')
    const stateWrites = await mirrorState(a)
    await expectEngineError(harness.engine.createMirror({ name: 'backward', sourceCluster: 'b', destinationCluster: 'a', topics: ['t'] }), 'CONFLICT')
    await harness.run(1)
    expect(harness.engine.listMirrors().map((m) => m.name)).toEqual(['forward'])
    expect(await recordsOf(a, 't')).toEqual(before)
    expect(await mirrorState(a)).toBe(stateWrites)
    // The live primary stays writable.
    await expect(a.produce('t', { records: [{ value: '3' }] })).resolves.toBeDefined()
  })

  it('#20 failback while the reverse mirror is paused (not STOPPED) is refused before anything is truncated', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 't', ['1', '2'])
    await harness.engine.createMirror({ name: 'forward', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(2)
    await harness.engine.pauseTopics('forward')
    await harness.run(1)
    await produceValues(a, 't', ['3'])
    const before = await recordsOf(a, 't')
    await expectEngineError(harness.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: ['t'] }), 'CONFLICT')
    await expectEngineError(harness.engine.planStart({ sourceCluster: 'b', destinationCluster: 'a', topics: ['t'] }).then(() => harness.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: ['t'] })), 'CONFLICT')
    expect(await recordsOf(a, 't')).toEqual(before)
  })

  it('#19 a failback of one topic is no loop while a topic whose name it prefixes (orders-eu) still mirrors forward', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    for (const topic of ['orders', 'orders-eu']) {
      await a.createTopic({ name: topic, partitions: 1, replicationFactor: 1 })
      await produceValues(a, topic, ['1', '2'])
    }
    await harness.engine.createMirror({ name: 'forward', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders', 'orders-eu'] })
    await harness.run(2)
    const { operation } = await harness.engine.failover('forward', { topics: ['orders'], confirm: 'forward' })
    await harness.engine.awaitOperation(operation.id)
    expect(harness.engine.partitions('forward').map((p) => [p.topic, p.state])).toEqual([
      ['orders', 'STOPPED'],
      ['orders-eu', 'MIRRORING'],
    ])
    await expect(harness.engine.planStart({ sourceCluster: 'b', destinationCluster: 'a', topics: ['orders'] })).resolves.toBeDefined()
    await harness.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: ['orders'] })
    await harness.run(3)
    expect(harness.engine.partitions('back').map((p) => [p.topic, p.state])).toEqual([['orders', 'MIRRORING']])
    // orders-eu itself still mirrors forward, so mirroring it back stays a loop.
    await expectEngineError(harness.engine.startTopics('back', { topics: ['orders-eu'] }), 'CONFLICT')
  })

  it('#21 a new mirror without a last mirror position starts from scratch and copies the source log', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 't', ['1', '2', '3'])
    const plan = await harness.engine.planStart({ sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    expect(plan.partitions).toEqual([expect.objectContaining({ topic: 't', partition: 0, truncateTo: null, recordsToRemove: 0, lastMirrorPosition: null })])
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(2)
    expect(await recordsOf(harness.cluster('b'), 't')).toEqual(await recordsOf(a, 't'))
  })
})

describe('syncs', () => {
  it('#31 group offsets are synced for idle groups, clamped to the destination log, and active groups are left alone', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 't', ['1', '2', '3', '4'])
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(2)
    await harness.engine.pauseTopics('m')
    await harness.run(1)
    await produceValues(a, 't', ['5', '6'])
    await a.commitOffsets('idle', [{ topic: 't', partition: 0, offset: 6 }])
    await a.commitOffsets('busy', [{ topic: 't', partition: 0, offset: 3 }])
    await b.joinGroup('busy')
    await harness.engine.resumeTopics('m')
    // The sync runs before the fetch in a tick, so the destination still ends at 4 when it clamps.
    await harness.run(1, 1_000)
    const groups = await b.listGroupOffsets()
    expect(groups.find((g) => g.groupId === 'idle')?.offsets).toEqual([expect.objectContaining({ topic: 't', partition: 0, offset: 4 })])
    expect(groups.find((g) => g.groupId === 'busy')?.offsets ?? []).toEqual([])
    await harness.run(2, 1_000)
    expect((await b.listGroupOffsets()).find((g) => g.groupId === 'idle')?.offsets).toEqual([expect.objectContaining({ offset: 6 })])
  })

  it('#32 #34 partition count and dynamic configs follow the source, minus the excluded ones', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1, configs: { 'retention.ms': '1000000', 'min.insync.replicas': '1' } })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(2)
    await a.createPartitions('t', 3)
    await a.alterTopicConfigs('t', { 'retention.ms': '2000000' })
    await harness.run(3, 1_000)
    const destination = await harness.cluster('b').describeTopic('t')
    expect(destination.partitions).toHaveLength(3)
    expect(destination.configs['retention.ms']).toBe('2000000')
    expect(destination.configs['min.insync.replicas']).toBeUndefined()
    expect(harness.engine.partitions('m').map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING', 'MIRRORING'])
  })

  it('#33 a new source topic matching topics.include starts mirroring within one refresh interval', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topicsInclude: ['orders\\..*'], config: FAST_SYNC })
    await a.createTopic({ name: 'orders.eu', partitions: 1, replicationFactor: 1 })
    await a.createTopic({ name: 'payments', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 'orders.eu', ['1'])
    await harness.run(3, 1_000)
    expect(harness.engine.getMirror('m').topics).toEqual(['orders.eu'])
    expect(await recordsOf(harness.cluster('b'), 'orders.eu')).toEqual(await recordsOf(a, 'orders.eu'))
  })

  it('#35 a source topic missing on two consecutive syncs fails its partitions for good', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(2)
    await a.deleteTopic('t')
    await harness.run(1, 1_000)
    expect(harness.engine.partitions('m')[0]!.error).not.toBe('The source topic is deleted.')
    await harness.run(2, 1_000)
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: -1, error: 'The source topic is deleted.' })
  })
})

describe('admin surface and persistence', () => {
  it('#39 #40 refused requests change nothing; deleting a mirror needs every topic STOPPED and leaves tombstones', async () => {
    await twoClusters()
    await harness.cluster('a').createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(2)
    const b = harness.cluster('b')
    const writes = await mirrorState(b)
    await expectEngineError(harness.engine.recoverTopics('m'), 'INVALID_MIRROR_STATE')
    await expectEngineError(harness.engine.resumeTopics('m', ['nope']), 'NOT_FOUND')
    await expectEngineError(harness.engine.failover('m', {}), 'CONFIRMATION_REQUIRED')
    await expectEngineError(harness.engine.failover('m', { confirm: 'wrong' }), 'CONFIRMATION_REQUIRED')
    await expectEngineError(harness.engine.deleteMirror('m'), 'INVALID_MIRROR_STATE')
    await expectEngineError(harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b' }), 'CONFLICT')
    await expectEngineError(harness.engine.createMirror({ name: 'bad name', sourceCluster: 'a', destinationCluster: 'b' }), 'VALIDATION_FAILED')
    await expectEngineError(harness.engine.createMirror({ name: 'x', sourceCluster: 'a', destinationCluster: 'nowhere' }), 'NOT_FOUND')
    expect(await mirrorState(b)).toBe(writes)
    expect(harness.engine.partitions('m').map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING'])

    const { operation } = await harness.engine.failover('m', { confirm: 'm' })
    await harness.engine.awaitOperation(operation.id)
    await harness.engine.deleteMirror('m')
    const tail = (await b.readMirrorState()).slice(-5)
    expect(tail.every((record) => record.value === null)).toBe(true)
    expect(tail.map((record) => record.key).sort()).toEqual(
      expect.arrayContaining(['mirror/m', expect.stringMatching(/^partition\/m\//), expect.stringMatching(/^position\/m\//)]),
    )
    expect(harness.engine.listMirrors()).toEqual([])
    await harness.restart()
    expect(harness.engine.listMirrors()).toEqual([])
  })

  it('#1 a restart replays __mirror_state into the same states, epochs and retry attempts', async () => {
    await twoClusters()
    await harness.cluster('a').createTopic({ name: 't', partitions: 3, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(2)
    await harness.engine.pauseTopics('m', ['t'])
    await harness.run(1)
    const before = harness.engine.partitions('m').map(({ partition, state, stateEpoch, previousState, retryAttempt }) => ({ partition, state, stateEpoch, previousState, retryAttempt }))
    await harness.restart()
    const after = harness.engine.partitions('m').map(({ partition, state, stateEpoch, previousState, retryAttempt }) => ({ partition, state, stateEpoch, previousState, retryAttempt }))
    expect(after).toEqual(before)
    await expect(harness.cluster('b').produce('t', { records: [{ value: 'x' }] })).rejects.toMatchObject({ code: 'TOPIC_READ_ONLY' })
  })
})

describe('tiered storage', () => {
  it('#36 a destination mirror partition with remote storage enabled fails for good', async () => {
    await twoClusters()
    await harness.cluster('a').createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(2)
    await harness.cluster('b').alterTopicConfigs('t', { 'remote.storage.enable': 'true' })
    await harness.run(2, 1_000)
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: -1 })
    expect(harness.engine.partitions('m')[0]!.error).toContain('tiered storage')
  })
})

describe('failover racing the fetcher', () => {
  it('#25 #30 nothing fetched is appended after the markers, and no later refresh restarts fetching', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    const producer = await a.createTransactionalProducer('racer')
    for (let i = 0; i < 20; i++) await producer.send('t', { partition: 0, records: [{ value: `tx ${i}` }] })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { ...FAST_SYNC, 'fetch.max.bytes': 1 } })
    await harness.run(2)
    // A fetch round and the failover start together; the round must not land anything after the stop.
    const round = harness.engine.tick()
    const { operation } = await harness.engine.failover('m', { confirm: 'm' })
    await round
    expect((await harness.engine.awaitOperation(operation.id)).status).toBe('succeeded')
    await producer.commit()
    await harness.run(5, 1_000)
    const records = await recordsOf(harness.cluster('b'), 't')
    const firstMarker = records.findIndex((record) => record.type !== 'DATA')
    expect(firstMarker).toBeGreaterThan(0)
    expect(records.slice(firstMarker).map((record) => record.type)).toEqual(['ABORT', 'MIRROR_PID_RESET'])
    expect(harness.engine.partitions('m')[0]!.state).toBe('STOPPED')
  })
})

describe('log start and epoch cache', () => {
  it('#12 a destination starts at the source log start, resets when the source deletes unfetched records, and follows log-start increments', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    const tp = { topic: 't', partition: 0 }
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 't', ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
    await a.deleteRecords(tp, 5)
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(2)
    expect((await b.describeTopic('t')).partitions[0]).toMatchObject({ logStartOffset: 5, logEndOffset: 10 })

    await harness.engine.pauseTopics('m')
    await harness.run(1)
    await produceValues(a, 't', ['10', '11', '12', '13', '14', '15', '16', '17', '18', '19'])
    await a.deleteRecords(tp, 15)
    await harness.engine.resumeTopics('m')
    await harness.run(3)
    expect((await b.describeTopic('t')).partitions[0]).toMatchObject({ logStartOffset: 15, logEndOffset: 20 })
    expect((await recordsOf(b, 't')).map((r) => r.value)).toEqual(['15', '16', '17', '18', '19'])

    await a.deleteRecords(tp, 17)
    await produceValues(a, 't', ['20'])
    await harness.run(2)
    expect((await b.describeTopic('t')).partitions[0]).toMatchObject({ logStartOffset: 17, logEndOffset: 21 })
  })

  it('#14 a mirror partition epoch cache holds only the epochs of mirrored batches, whatever the destination epoch', async () => {
    await twoClusters()
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await produceValues(a, 't', ['1'])
    await a.bumpLeaderEpoch({ topic: 't', partition: 0 }, 4)
    await produceValues(a, 't', ['2'])
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.run(3)
    const b = harness.cluster('b')
    const description = (await b.describeTopic('t')).partitions[0]!
    expect(description.leaderEpoch).toBeGreaterThanOrEqual(14)
    const sourceEpochs = (await recordsOf(a, 't')).map((r) => r.leaderEpoch)
    for (const replica of description.replicas) {
      const epochs = b.replicaLog({ topic: 't', partition: 0 }, replica)!.epochEntries().map((entry) => entry.epoch)
      expect(epochs.every((epoch) => sourceEpochs.includes(epoch))).toBe(true)
    }
  })
})

describe('fetches that wait at the source (fetchMaxWaitMs)', () => {
  /** Resolves to true once `promise` settles, false if it is still pending after many event-loop turns. */
  async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
    let settled = false
    void promise.finally(() => (settled = true))
    for (let i = 0; i < 50 && !settled; i++) await new Promise((resolve) => setImmediate(resolve))
    return settled
  }

  it('a caught-up round waits for new records, and a pause or a close ends the wait at once', async () => {
    // A wait of ten minutes: any of the steps below that did not end it would time the test out.
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, fetchMaxWaitMs: 600_000 })
    const a = harness.cluster('a')
    await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await produceValues(a, 't', ['1'])
    await produceValues(a, 't', ['x'], 1)
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await harness.engine.tick()
    expect((await recordsOf(harness.cluster('b'), 't')).map((r) => r.value)).toEqual(['1'])

    const waiting = harness.engine.tick()
    expect(await settlesSoon(waiting)).toBe(false)
    await produceValues(a, 't', ['2'])
    await waiting
    expect((await recordsOf(harness.cluster('b'), 't')).map((r) => r.value)).toEqual(['1', '2'])

    const beforePause = harness.engine.tick()
    expect(await settlesSoon(beforePause)).toBe(false)
    await harness.engine.pauseTopics('m')
    await beforePause
    expect(harness.engine.partitions('m').map((p) => p.state)).toEqual(['PAUSED', 'PAUSED'])

    await harness.engine.resumeTopics('m')
    const afterResume = harness.engine.tick()
    expect(await settlesSoon(afterResume)).toBe(false)
    await harness.engine.close()
    await afterResume
  })

  it("data on one mirror ends another mirror's wait: an idle mirror's long poll never holds a busy one's next round", async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 }, c: { brokers: 1 } }, fetchMaxWaitMs: 600_000 })
    const a = harness.cluster('a')
    await a.createTopic({ name: 'busy', partitions: 1, replicationFactor: 1 })
    await a.createTopic({ name: 'idle', partitions: 1, replicationFactor: 1 })
    await produceValues(a, 'busy', ['1'])
    await produceValues(a, 'idle', ['x'])
    await harness.engine.createMirror({ name: 'to-b', sourceCluster: 'a', destinationCluster: 'b', topics: ['busy'] })
    await harness.engine.createMirror({ name: 'to-c', sourceCluster: 'a', destinationCluster: 'c', topics: ['idle'] })
    await harness.engine.tick()
    expect((await recordsOf(harness.cluster('b'), 'busy')).map((r) => r.value)).toEqual(['1'])
    expect((await recordsOf(harness.cluster('c'), 'idle')).map((r) => r.value)).toEqual(['x'])

    // Both caught up: the tick waits. New records on `busy` end its round, and with it the wait of `idle`'s
    // (ten minutes: were it not ended, the test would time out).
    const waiting = harness.engine.tick()
    expect(await settlesSoon(waiting)).toBe(false)
    await produceValues(a, 'busy', ['2'])
    await waiting
    expect((await recordsOf(harness.cluster('b'), 'busy')).map((r) => r.value)).toEqual(['1', '2'])
    await harness.engine.close()
  })
})
