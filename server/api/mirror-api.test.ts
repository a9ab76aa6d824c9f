import { MirrorTimeline } from '@/lib/api/mirror-timeline'
import { afterEach, describe, expect, it } from 'vitest'
import { FailoverAccepted, FailoverPlanResponse, LagResponse, Mirror, MirrorList, MirrorPartitionList, TruncationPlanResponse } from '@/lib/api/mirrors'
import { lagByTopic } from '@/lib/mirror/lag-by-topic'
import { Operation as ApiOperation, OperationList } from '@/lib/api/operations'
import { MirrorApi } from './mirror-api'
import { EngineError } from '../engine/errors'
import { createEngineHarness, type EngineHarness } from '../engine/testing/harness'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

async function setUp(): Promise<{ harness: EngineHarness; api: MirrorApi }> {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 }, c: { brokers: 1 } } })
  // As the registry does: an unknown cluster name is NOT_FOUND.
  const cluster = (name: string) => {
    const found = harness.clusters.get(name)
    if (!found) throw new EngineError('NOT_FOUND', `cluster ${name} not found`)
    return found
  }
  const api = new MirrorApi(harness.engine, {
    clusterId: async (name) => cluster(name).clusterId(),
    topics: async (name) => (await cluster(name).describeTopics()).map(({ name: topic, topicId }) => ({ name: topic, topicId })),
  })
  for (const topic of ['orders', 'payments', 'logs']) await harness.cluster('a').createTopic({ name: topic, partitions: 2, replicationFactor: 1 })
  await harness.cluster('a').produce('orders', { partition: 0, records: [{ value: '1' }, { value: '2' }] })
  return { harness, api }
}

async function expectCode(action: Promise<unknown> | (() => unknown), code: string) {
  const promise = typeof action === 'function' ? Promise.resolve().then(action) : action
  await expect(promise).rejects.toSatisfy((error: unknown) => error instanceof EngineError && error.code === code)
}

describe('MirrorApi', () => {
  it('answers mirrors, partitions and truncation plans in the shapes of the API schemas', async () => {
    const { api } = await setUp()
    const dry = await api.planCreate({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], topicsInclude: ['pay.*'] })
    expect(TruncationPlanResponse.parse({ plan: dry }).plan.partitions.map((p) => `${p.topic}-${p.partition}`)).toEqual([
      'orders-0',
      'orders-1',
      'payments-0',
      'payments-1',
    ])
    expect(api.list()).toEqual({ mirrors: [] })

    const created = await api.create({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], config: { 'fetch.max.bytes': 4096 } })
    expect(Mirror.parse(created)).toMatchObject({ name: 'dr', topics: ['orders'], config: { 'fetch.max.bytes': 4096, 'topics.exclude': ['__.*'] } })
    await harness.run(4)
    expect(MirrorList.parse(api.list()).mirrors).toEqual([expect.objectContaining({ name: 'dr', partitionsByState: { MIRRORING: 2 }, maxOffsetLag: 0 })])

    const partitions = MirrorPartitionList.parse({ partitions: api.partitions('dr', {}), stateVersion: api.stateVersion('dr') }).partitions
    expect(partitions.map((p) => [p.topic, p.partition, p.state, p.destinationLogEndOffset])).toEqual([
      ['orders', 0, 'MIRRORING', 2],
      ['orders', 1, 'MIRRORING', 0],
    ])
    expect(api.partitions('dr', { state: ['PAUSED', 'MIRRORING'] })).toHaveLength(2)
    expect(api.partitions('dr', { state: ['PAUSED'] })).toEqual([])
    await expectCode(() => api.partitions('dr', { topic: 'payments' }), 'NOT_FOUND')
    await expectCode(() => api.lag('dr', { topic: 'nope' }), 'NOT_FOUND')
    // by=topic: the chart's series folded on the server, the per-partition list left empty.
    const perPartition = api.lag('dr', { stepMs: 1000 })
    const perTopic = api.lag('dr', { stepMs: 1000, by: 'topic' })
    expect(LagResponse.parse(perTopic)).toEqual(perTopic)
    expect(perPartition.series.map((series) => `${series.topic}-${series.partition}`)).toEqual(['orders-0', 'orders-1'])
    expect(perPartition.topics).toBeUndefined()
    expect(perTopic.series).toEqual([])
    expect(perTopic.topics).toEqual(lagByTopic(perPartition.series, 1000))
    expect(perTopic.topics?.map((series) => [series.topic, series.partitions])).toEqual([['orders', 2]])
    expect(api.history('dr', 'orders', 0).transitions.map((t) => t.to)).toContain('MIRRORING')
    // The mirror's timeline: both partitions' transitions as mirror-level entries, checked against the API schema.
    const timeline = MirrorTimeline.parse(api.timeline('dr'))
    expect(timeline.entries.at(-1)).toMatchObject({ kind: 'change', to: 'MIRRORING', partitions: 2 })
    expect(() => api.timeline('nope')).toThrow()
  })

  it('refuses in a dry run what the real start would refuse, and changes nothing', async () => {
    const { api } = await setUp()
    await api.create({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await harness.run(3)
    await expectCode(api.planCreate({ name: 'dr', sourceCluster: 'a', destinationCluster: 'c' }), 'CONFLICT')
    await expectCode(api.planStart('dr', { topics: ['orders'] }), 'INVALID_MIRROR_STATE')
    await expectCode(api.start('dr', { topics: ['orders'] }), 'INVALID_MIRROR_STATE')
    await expectCode(api.planCreate({ name: 'other', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] }), 'CONFLICT')
    await expectCode(api.planCreate({ name: 'other', sourceCluster: 'a', destinationCluster: 'b', topics: ['nope'] }), 'NOT_FOUND')
    await expectCode(api.planCreate({ name: 'other', sourceCluster: 'a', destinationCluster: 'nowhere' }), 'NOT_FOUND')
    // The dry run is the create's own plan: a mirror of a cluster onto itself is refused by both.
    await expectCode(api.planCreate({ name: 'self', sourceCluster: 'a', destinationCluster: 'a', topics: ['orders'] }), 'VALIDATION_FAILED')
    await expectCode(api.create({ name: 'self', sourceCluster: 'a', destinationCluster: 'a', topics: ['orders'] }), 'VALIDATION_FAILED')
    // A mirror back from b to a while dr still mirrors orders would be a loop.
    await expectCode(api.planCreate({ name: 'loop', sourceCluster: 'b', destinationCluster: 'a', topics: ['orders'] }), 'CONFLICT')
    await expectCode(api.create({ name: 'loop', sourceCluster: 'b', destinationCluster: 'a', topics: ['orders'] }), 'CONFLICT')
    await expectCode(api.updateConfig('dr', { 'mirror.failed.retry.initial.backoff.ms': 600_000 }), 'VALIDATION_FAILED')

    const plan = await api.planStart('dr', { patterns: ['pay.*'] })
    expect(plan.partitions.map((p) => [p.topic, p.partition, p.truncateTo, p.recordsToRemove])).toEqual([
      ['payments', 0, null, 0],
      ['payments', 1, null, 0],
    ])
    expect(api.get('dr').topics).toEqual(['orders'])
    expect(api.list().mirrors.map((m) => m.name)).toEqual(['dr'])
    expect(api.get('dr').config['mirror.failed.retry.initial.backoff.ms']).toBe(100)
  })

  it('answers a failback of orders in a dry run while orders-eu still mirrors forward (no prefix match)', async () => {
    const { api } = await setUp()
    await harness.cluster('a').createTopic({ name: 'orders-eu', partitions: 1, replicationFactor: 1 })
    await api.create({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders', 'orders-eu'] })
    await harness.run(3)
    const accepted = await api.failover('dr', { topics: ['orders'], confirm: 'dr' })
    await harness.engine.awaitOperation(accepted.operation)
    const dry = await api.planCreate({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: ['orders'] })
    expect(dry.partitions.map((p) => `${p.topic}-${p.partition}`)).toEqual(['orders-0', 'orders-1'])
    await expectCode(api.planCreate({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: ['orders-eu'] }), 'CONFLICT')
  })

  it('fails over as an operation whose steps read from the partitions', async () => {
    const { api } = await setUp()
    await api.create({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await harness.run(3)
    const dry = await api.failoverPlan('dr', undefined)
    expect(FailoverPlanResponse.parse({ plan: dry }).plan).toMatchObject({ mirror: 'dr', canProceed: true })
    await expectCode(api.failover('dr', {}), 'CONFIRMATION_REQUIRED')
    await expectCode(api.failover('dr', { confirm: 'DR' }), 'CONFIRMATION_REQUIRED')
    expect(api.operations()).toEqual([])

    const accepted = FailoverAccepted.parse(await api.failover('dr', { confirm: 'dr' }))
    await harness.engine.awaitOperation(accepted.operation)
    const operation = ApiOperation.parse(api.operation(accepted.operation))
    expect(operation).toMatchObject({ id: accepted.operation, kind: 'failover', mirror: 'dr', status: 'succeeded', plan: { mirror: 'dr' } })
    expect(operation.partitions.map((p) => [p.partition, p.step, p.state])).toEqual([
      [0, 'done', 'STOPPED'],
      [1, 'done', 'STOPPED'],
    ])
    expect(OperationList.parse({ operations: api.operations({ status: 'succeeded' }) }).operations.map((o) => [o.id, o.plan])).toEqual([[accepted.operation, undefined]])
    expect(api.operations({ status: 'running' })).toEqual([])
    await api.delete('dr')
    await expectCode(() => api.get('dr'), 'NOT_FOUND')
  })
})
