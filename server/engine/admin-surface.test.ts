import { afterEach, describe, expect, it } from 'vitest'
import { FAILURE_MESSAGES } from '@/lib/mirror/constants'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { MirrorApi } from '../api/mirror-api'
import { conditionsOf } from '../http/conditional'
import { EngineError } from './errors'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * The KIP's admin surface through the engine and its API object (issue 13): exact preconditions, state
 * versions with If-Match, start patterns kept for discovery, read-only guards on mirror topics, config
 * sync against operator changes, tiered storage and deleted source topics (KIP-1279.md §11 #8 #9 #32 #33
 * #35 #36 #39).
 */

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

async function setUp(topics: Record<string, number> = { orders: 2 }): Promise<{ a: EmbeddedCluster; b: EmbeddedCluster; api: MirrorApi }> {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
  const a = harness.cluster('a')
  for (const [name, partitions] of Object.entries(topics)) {
    await a.createTopic({ name, partitions, replicationFactor: 1 })
    await a.produce(name, { partition: 0, records: [{ value: '1' }, { value: '2' }, { value: '3' }] })
  }
  const api = new MirrorApi(harness.engine, {
    clusterId: async (name) => harness.cluster(name).clusterId(),
    topics: async (name) => (await harness.cluster(name).describeTopics()).map(({ name: topic, topicId }) => ({ name: topic, topicId })),
  })
  return { a, b: harness.cluster('b'), api }
}

/** A command's preconditions as the HTTP layer reads them from an If-Match header. */
function ifMatch(header: string) {
  return conditionsOf(new Request('http://mirrorboard.test/', { headers: { 'if-match': header } }))
}

async function startMirror(topics: string[]): Promise<void> {
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics, config: FAST_SYNC })
  await harness.run(3)
  expect(harness.engine.partitions('m').every((p) => p.state === 'MIRRORING')).toBe(true)
}

async function refusal(action: Promise<unknown>, code: string): Promise<EngineError> {
  const error = await action.then(
    () => null,
    (thrown: unknown) => thrown,
  )
  expect(error, `expected ${code}`).toBeInstanceOf(EngineError)
  expect((error as EngineError).code).toBe(code)
  return error as EngineError
}

function statesOf(): string[] {
  return harness.engine.partitions('m').map((p) => `${p.topic}-${p.partition}:${p.state}`)
}

describe('#39 preconditions through the engine', () => {
  it('refuses resume on MIRRORING and pause on PAUSED when named, with every offending partition; nothing is written', async () => {
    const { b } = await setUp({ orders: 2, payments: 1 })
    await startMirror(['orders', 'payments'])
    const writes = (await b.readMirrorState()).length
    const resume = await refusal(harness.engine.resumeTopics('m', ['orders']), 'INVALID_MIRROR_STATE')
    expect(resume.details).toMatchObject({
      command: 'resume',
      allowedStates: ['PAUSED'],
      partitionCount: 2,
      partitions: [
        { topic: 'orders', partition: 0, state: 'MIRRORING' },
        { topic: 'orders', partition: 1, state: 'MIRRORING' },
      ],
    })
    // Without topics: none is PAUSED, so none qualifies.
    await refusal(harness.engine.resumeTopics('m'), 'INVALID_MIRROR_STATE')
    expect((await b.readMirrorState()).length).toBe(writes)

    expect(await harness.engine.pauseTopics('m', ['payments'])).toEqual({ topics: ['payments'] })
    const pause = await refusal(harness.engine.pauseTopics('m', ['orders', 'payments']), 'INVALID_MIRROR_STATE')
    expect(pause.details).toMatchObject({ partitions: [{ topic: 'payments', partition: 0, state: 'PAUSED' }] })
    expect(statesOf()).toEqual(['orders-0:MIRRORING', 'orders-1:MIRRORING', 'payments-0:PAUSED'])

    // Without topics the command applies where it may and says what it skipped.
    expect(await harness.engine.pauseTopics('m')).toEqual({ topics: ['orders'], skipped: [{ topic: 'payments', partition: 0, state: 'PAUSED' }] })
    expect(await harness.engine.resumeTopics('m', ['payments'])).toEqual({ topics: ['payments'] })
    expect(await harness.engine.resumeTopics('m')).toEqual({ topics: ['orders'], skipped: [{ topic: 'payments', partition: 0, state: 'MIRRORING' }] })
    expect(statesOf()).toEqual(['orders-0:MIRRORING', 'orders-1:MIRRORING', 'payments-0:MIRRORING'])
  })

  it('starts only STOPPED or UNKNOWN partitions: a named MIRRORING topic is refused, a pattern skips it', async () => {
    const { a } = await setUp({ orders: 1, payments: 1 })
    await startMirror(['orders'])
    const start = await refusal(harness.engine.startTopics('m', { topics: ['orders'] }), 'INVALID_MIRROR_STATE')
    expect(start.details).toMatchObject({ command: 'start', partitions: [{ topic: 'orders', partition: 0, state: 'MIRRORING' }] })
    await refusal(harness.engine.startTopics('m', { patterns: ['ord.*'] }), 'INVALID_MIRROR_STATE')
    expect(harness.engine.getMirror('m').config['topics.include']).toEqual([])

    expect(await harness.engine.startTopics('m', { patterns: ['.*s'] })).toEqual({ topics: ['payments'], skipped: [{ topic: 'orders', partition: 0, state: 'MIRRORING' }] })
    await harness.run(3)
    expect(statesOf()).toEqual(['orders-0:MIRRORING', 'payments-0:MIRRORING'])
    expect(await a.describeTopic('payments')).toBeDefined()
  })

  it('fails over FAILED partitions (the DR decision) and treats STOPPED ones as done', async () => {
    const { a } = await setUp({ orders: 1, payments: 1 })
    await startMirror(['orders', 'payments'])
    await a.deleteTopic('payments')
    await harness.run(3, 1_000)
    expect(statesOf()).toEqual(['orders-0:MIRRORING', 'payments-0:FAILED'])
    const first = await harness.engine.failover('m', { topics: ['payments'], confirm: 'm' })
    await harness.engine.awaitOperation(first.operation.id)
    expect(statesOf()).toEqual(['orders-0:MIRRORING', 'payments-0:STOPPED'])
    // A second failover naming both stops what is left; the STOPPED partition is not refused.
    const second = await harness.engine.failover('m', { topics: ['orders', 'payments'], confirm: 'm' })
    expect(second.operation.partitions.map((p) => p.topic)).toEqual(['orders'])
    await harness.engine.awaitOperation(second.operation.id)
    expect(statesOf()).toEqual(['orders-0:STOPPED', 'payments-0:STOPPED'])
    await refusal(harness.engine.pauseTopics('m'), 'INVALID_MIRROR_STATE')
  })

  it('#40 deletes a mirror only when every partition is STOPPED, naming the others', async () => {
    const { b } = await setUp({ orders: 1, payments: 2 })
    await startMirror(['orders', 'payments'])
    const { operation } = await harness.engine.failover('m', { topics: ['orders'], confirm: 'm' })
    await harness.engine.awaitOperation(operation.id)
    const writes = (await b.readMirrorState()).length
    const error = await refusal(harness.engine.deleteMirror('m'), 'INVALID_MIRROR_STATE')
    expect(error.details).toMatchObject({
      command: 'delete',
      allowedStates: ['STOPPED'],
      partitions: [
        { topic: 'payments', partition: 0, state: 'MIRRORING' },
        { topic: 'payments', partition: 1, state: 'MIRRORING' },
      ],
    })
    expect((await b.readMirrorState()).length).toBe(writes)
    const rest = await harness.engine.failover('m', { confirm: 'm' })
    await harness.engine.awaitOperation(rest.operation.id)
    await harness.engine.deleteMirror('m')
    expect(harness.engine.listMirrors()).toEqual([])
  })
})

describe('#39 state versions and If-Match', () => {
  it('two mutations with the same If-Match: exactly one applies, the other gets PRECONDITION_FAILED and changes nothing', async () => {
    const { api } = await setUp({ orders: 2, payments: 2 })
    await startMirror(['orders', 'payments'])
    const version = api.get('m').stateVersion
    const results = await Promise.allSettled([api.pause('m', undefined, ifMatch(`"${version}"`)), api.resume('m', undefined, ifMatch(`"${version}"`))])
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { topics: ['orders', 'payments'] } })
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { code: 'PRECONDITION_FAILED', details: { stateVersion: api.stateVersion('m') } } })
    expect(statesOf().every((state) => state.endsWith(':PAUSED'))).toBe(true)

    const twice = await Promise.allSettled([api.resume('m', ['orders'], ifMatch(`"${api.stateVersion('m')}"`)), api.resume('m', ['payments'], ifMatch(`"${api.stateVersion('m')}"`))])
    expect(twice.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(statesOf().filter((state) => state.endsWith(':MIRRORING'))).toHaveLength(2)
    // `*` and the current version pass; weak and malformed tags never match.
    await refusal(api.pause('m', undefined, ifMatch(`W/"${api.stateVersion('m')}"`)), 'PRECONDITION_FAILED')
    await refusal(api.pause('m', undefined, ifMatch('garbage')), 'PRECONDITION_FAILED')
    await expect(api.pause('m', undefined, ifMatch('*'))).resolves.toMatchObject({ topics: expect.any(Array) })
  })

  it('without If-Match, concurrent pause and resume end in a state one of their orders reaches', async () => {
    const { api } = await setUp({ orders: 2, payments: 2 })
    await startMirror(['orders', 'payments'])
    const [paused, resumed] = await Promise.allSettled([api.pause('m', undefined), api.resume('m', undefined)])
    // Pause then resume: both apply and every partition mirrors again.
    expect(paused.status).toBe('fulfilled')
    expect(resumed.status).toBe('fulfilled')
    expect(new Set(statesOf().map((state) => state.split(':')[1]))).toEqual(new Set(['MIRRORING']))

    const [resumedFirst, pausedSecond] = await Promise.allSettled([api.resume('m', undefined), api.pause('m', undefined)])
    // Resume then pause: the resume finds nothing PAUSED and is refused, the pause applies.
    expect(resumedFirst).toMatchObject({ status: 'rejected', reason: { code: 'INVALID_MIRROR_STATE' } })
    expect(pausedSecond.status).toBe('fulfilled')
    expect(new Set(statesOf().map((state) => state.split(':')[1]))).toEqual(new Set(['PAUSED']))
  })

  it('moves with every state change and definition change, and is the same after a restart', async () => {
    const { api } = await setUp()
    await startMirror(['orders'])
    const mirroring = api.stateVersion('m')
    await harness.run(3)
    expect(api.stateVersion('m')).toBe(mirroring)
    await api.updateConfig('m', { 'fetch.max.bytes': 4096 })
    const patched = api.stateVersion('m')
    expect(patched).not.toBe(mirroring)
    await api.pause('m', ['orders'])
    await api.resume('m', ['orders'])
    // Back in MIRRORING, but the state epochs moved: no version comes back.
    expect(api.stateVersion('m')).not.toBe(patched)
    const before = api.stateVersion('m')
    await harness.restart()
    const restarted = new MirrorApi(harness.engine, { clusterId: async () => '', topics: async () => [] })
    expect(restarted.stateVersion('m')).toBe(before)
    await expect(restarted.pause('m', undefined, ifMatch(`"${before}"`))).resolves.toEqual({ topics: ['orders'] })
  })
})

describe('#33 start patterns are kept for discovery', () => {
  it('adds patterns to topics.include even when they match nothing yet; a topic created later is mirrored', async () => {
    await setUp({ orders: 1 })
    await startMirror(['orders'])
    expect(await harness.engine.startTopics('m', { patterns: ['pay.*'] })).toEqual({ topics: [] })
    expect(harness.engine.getMirror('m').config['topics.include']).toEqual(['pay.*'])
    // Kept once, and across a restart.
    await harness.engine.startTopics('m', { patterns: ['pay.*'] })
    await harness.restart()
    expect(harness.engine.getMirror('m').config['topics.include']).toEqual(['pay.*'])

    // The restart opened the clusters again: the `a` from before is closed.
    const source = harness.cluster('a')
    await source.createTopic({ name: 'payments', partitions: 2, replicationFactor: 1 })
    await source.produce('payments', { partition: 1, records: [{ value: 'p' }] })
    await harness.run(4, 1_000)
    expect(statesOf()).toEqual(['orders-0:MIRRORING', 'payments-0:MIRRORING', 'payments-1:MIRRORING'])
    expect((await harness.cluster('b').describeTopic('payments')).topicId).toBe((await source.describeTopic('payments')).topicId)
  })
})

describe('start patterns and topics.exclude', () => {
  it('leaves out the topics topics.exclude matches, as discovery does; named topics are started as asked', async () => {
    await setUp({ orders: 1, 'orders.audit': 1, payments: 1 })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: [], config: { 'topics.exclude': ['.*\\.audit'] } })
    expect(await harness.engine.startTopics('m', { patterns: ['orders.*'] })).toEqual({ topics: ['orders'] })
    await harness.run(4, 1_000)
    expect(statesOf()).toEqual(['orders-0:MIRRORING'])
    expect(await harness.engine.startTopics('m', { topics: ['payments'] })).toEqual({ topics: ['payments'] })
  })
})

describe('#8 #9 read-only guards on mirror topics', () => {
  it('refuses adding partitions, deleting records and deleting the topic while MIRRORING and PAUSED; allows them once STOPPED and on other topics', async () => {
    const { b } = await setUp({ orders: 1 })
    await startMirror(['orders'])
    await b.createTopic({ name: 'local', partitions: 1, replicationFactor: 1 })
    await b.produce('local', { records: [{ value: 'x' }, { value: 'y' }] })

    const refuseAll = async () => {
      const before = await b.describeTopic('orders')
      await expect(b.createPartitions('orders', 2)).rejects.toMatchObject({ code: 'TOPIC_READ_ONLY' })
      await expect(b.deleteRecords({ topic: 'orders', partition: 0 }, 1)).rejects.toMatchObject({ code: 'TOPIC_READ_ONLY' })
      await expect(b.deleteTopic('orders')).rejects.toMatchObject({ code: 'TOPIC_READ_ONLY' })
      expect(await b.describeTopic('orders')).toEqual(before)
    }
    await refuseAll()
    await harness.engine.pauseTopics('m')
    expect(statesOf()).toEqual(['orders-0:PAUSED'])
    await refuseAll()

    // A topic of the same cluster that no mirror owns is not affected.
    expect((await b.createPartitions('local', 2)).partitions).toHaveLength(2)
    expect(await b.deleteRecords({ topic: 'local', partition: 0 }, 1)).toEqual({ logStartOffset: 1 })

    const { operation } = await harness.engine.failover('m', { confirm: 'm' })
    await harness.engine.awaitOperation(operation.id)
    expect(statesOf()).toEqual(['orders-0:STOPPED'])
    expect((await b.createPartitions('orders', 2)).partitions).toHaveLength(2)
    expect(await b.deleteRecords({ topic: 'orders', partition: 0 }, 2)).toEqual({ logStartOffset: 2 })
    await b.deleteTopic('orders')
    expect((await b.describeTopics()).map((topic) => topic.name)).toEqual(['local'])
    await b.deleteTopic('local')
  })
})

describe('#32 #36 topic configs on mirror topics', () => {
  it('a synced config changed on the destination comes back at the next sync; an excluded one keeps the destination value', async () => {
    const { a, b } = await setUp({ orders: 1 })
    await a.updateTopicConfigs('orders', { set: { 'retention.ms': '86400000', 'message.timestamp.type': 'CreateTime' } })
    await startMirror(['orders'])
    expect((await b.describeTopic('orders')).configs).toEqual({ 'retention.ms': '86400000' })

    await b.updateTopicConfigs('orders', { set: { 'retention.ms': '1000', 'message.timestamp.type': 'LogAppendTime' } })
    await harness.engine.destinationTopicConfigsChanged('b', 'orders')
    expect(statesOf()).toEqual(['orders-0:MIRRORING'])
    await harness.run(2, 1_000)
    expect((await b.describeTopic('orders')).configs).toEqual({ 'retention.ms': '86400000', 'message.timestamp.type': 'LogAppendTime' })
  })

  it('remote.storage.enable set on a mirror topic fails its partitions for good at once, and they stay FAILED', async () => {
    const { b } = await setUp({ orders: 2 })
    await startMirror(['orders'])
    await b.updateTopicConfigs('orders', { set: { 'remote.storage.enable': 'true' } })
    await harness.engine.destinationTopicConfigsChanged('b', 'orders')
    const failed = { state: 'FAILED', retryAttempt: -1, error: FAILURE_MESSAGES.tieredStorageEnabled, previousState: 'MIRRORING' }
    expect(harness.engine.partitions('m')).toEqual([expect.objectContaining(failed), expect.objectContaining(failed)])
    await harness.run(10, 60_000)
    expect(harness.engine.partitions('m')).toEqual([expect.objectContaining(failed), expect.objectContaining(failed)])
  })

  it('remote.storage.enable set on a PAUSED mirror topic fails it at once too, not at the first sync after a resume', async () => {
    const { b } = await setUp({ orders: 1 })
    await startMirror(['orders'])
    await harness.engine.pauseTopics('m', ['orders'])
    await harness.run(3)
    expect(harness.engine.partitions('m')).toEqual([expect.objectContaining({ state: 'PAUSED' })])
    await b.updateTopicConfigs('orders', { set: { 'remote.storage.enable': 'true' } })
    await harness.engine.destinationTopicConfigsChanged('b', 'orders')
    expect(harness.engine.partitions('m')).toEqual([
      expect.objectContaining({ state: 'FAILED', retryAttempt: -1, error: FAILURE_MESSAGES.tieredStorageEnabled, previousState: 'PAUSED' }),
    ])
  })

  it('refuses unknown keys, bad values and a key both set and deleted, changing nothing', async () => {
    const { b } = await setUp({ orders: 1 })
    await startMirror(['orders'])
    const before = (await b.describeTopic('orders')).configs
    await expect(b.updateTopicConfigs('orders', { set: { 'no.such.config': '1' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(b.updateTopicConfigs('orders', { delete: ['no.such.config'] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(b.updateTopicConfigs('orders', { set: { 'retention.ms': 'soon' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(b.updateTopicConfigs('orders', { set: { 'retention.ms': '1' }, delete: ['retention.ms'] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(b.updateTopicConfigs('orders', { set: { 'retention.ms': '1', 'min.insync.replicas': '2' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    expect((await b.describeTopic('orders')).configs).toEqual(before)
  })
})

describe('#35 a deleted source topic', () => {
  it('moves its partitions to FAILED non-retryable with the reason, and they stay so across syncs, retries and a restart', async () => {
    const { a } = await setUp({ orders: 1, payments: 1 })
    await startMirror(['orders', 'payments'])
    await a.deleteTopic('payments')
    await harness.run(3, 1_000)
    const failed = { topic: 'payments', state: 'FAILED', retryAttempt: -1, error: FAILURE_MESSAGES.sourceTopicDeleted }
    expect(harness.engine.partitions('m')).toEqual([expect.objectContaining({ topic: 'orders', state: 'MIRRORING' }), expect.objectContaining(failed)])
    // Well past every retry backoff (300 s at most), and many syncs later.
    await harness.run(12, 60_000)
    expect(harness.engine.partitions('m')[1]).toMatchObject(failed)
    await harness.restart()
    await harness.run(3, 1_000)
    expect(harness.engine.partitions('m')).toEqual([expect.objectContaining({ topic: 'orders', state: 'MIRRORING' }), expect.objectContaining(failed)])
  })
})

describe('topics created with a topic id and names beginning with __', () => {
  it('keeps a given topic id (a pre-created mirror topic), refuses one already used, and allows __ names but not the internal topics', async () => {
    const { a, b } = await setUp({ orders: 1 })
    const sourceId = (await a.describeTopic('orders')).topicId
    expect((await b.createTopic({ name: 'orders', partitions: 1, replicationFactor: 1, topicId: sourceId })).topicId).toBe(sourceId)
    await expect(b.createTopic({ name: 'other', partitions: 1, replicationFactor: 1, topicId: sourceId })).rejects.toMatchObject({ code: 'CONFLICT' })
    await expect(b.createTopic({ name: 'other', partitions: 1, topicId: 'not/an/id' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    // The pre-created topic joins the mirror: same id, now read-only.
    await startMirror(['orders'])
    expect(await b.describeTopic('orders')).toMatchObject({ topicId: sourceId, readOnly: true, mirror: { name: 'm' } })

    expect((await b.createTopic({ name: '__audit', partitions: 1, replicationFactor: 1 })).name).toBe('__audit')
    for (const name of ['__consumer_offsets', '__transaction_state', '__mirror_state']) {
      await expect(b.createTopic({ name, partitions: 1 })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    }
    await expect(b.deleteTopic('__mirror_state')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    // The default topics.exclude keeps a __ topic out of a pattern's discovery.
    await a.createTopic({ name: '__audit', partitions: 1, replicationFactor: 1 })
    await harness.engine.updateMirrorConfig('m', { 'topics.include': ['.*'] })
    await harness.run(3, 1_000)
    expect(harness.engine.getMirror('m').topics).toEqual(['orders'])
  })
})
