import { afterEach, describe, expect, it } from 'vitest'
import { OperationReport } from '@/lib/api/operation-report'
import { MirrorApi } from './mirror-api'
import { EngineError } from '../engine/errors'
import { buildReport } from './operation-report'
import { createEngineHarness, type EngineHarness } from '../engine/testing/harness'
import { WORKED_EXAMPLE_CLUSTERS, mirrorOffsets0To2ThenPause } from '../engine/testing/worked-example'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

async function setUp(): Promise<MirrorApi> {
  harness = await createEngineHarness({ clusters: WORKED_EXAMPLE_CLUSTERS })
  await mirrorOffsets0To2ThenPause(harness)
  return new MirrorApi(harness.engine, {
    clusterId: async (name) => harness.cluster(name).clusterId(),
    topics: async (name) => (await harness.cluster(name).describeTopics()).map(({ name: topic, topicId }) => ({ name: topic, topicId })),
  })
}

async function refusal(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  if (!(error instanceof EngineError)) throw new Error(`expected an EngineError, got ${String(error)}`)
  return error
}

describe('failover gates, forcing and the report (the KIP worked example)', () => {
  it('refuses a failover whose failing lag gate is not forced, and names it; nothing starts', async () => {
    const api = await setUp()
    const error = await refusal(api.failover('dr', { confirm: 'dr', force: [] }))
    expect(error.code).toBe('INVALID_MIRROR_STATE')
    expect(error.details?.unforced).toEqual(['lag-threshold'])
    expect(api.operations(undefined)).toEqual([])
    expect(harness.engine.partitions('dr')[0]?.state).toBe('PAUSED')
  })

  it('fails over when the lag gate is forced, records who and which gate, and reports the markers read from the log', async () => {
    const api = await setUp()
    const accepted = await api.failover('dr', { confirm: 'dr', force: ['lag-threshold'] }, undefined, { actor: 'session:abcd1234', role: 'operator' })
    await harness.run(5)
    await harness.engine.awaitOperation(accepted.operation)
    const operation = api.operation(accepted.operation)
    expect(operation).toMatchObject({ status: 'succeeded', requestedBy: { actor: 'session:abcd1234', role: 'operator' }, forcedGates: ['lag-threshold'] })

    const report = OperationReport.parse(await buildReport({ engine: harness.engine, clusters: { client: (name: string) => harness.cluster(name), ports: (name: string) => ({ host: harness.cluster(name) }) } }, accepted.operation))
    expect(report.confirmation.confirmedBy).toBe('session:abcd1234')
    expect(report.confirmation.forcedGates.map((gate) => gate.name)).toEqual(['lag-threshold'])
    expect(report.partitions).toEqual([
      expect.objectContaining({
        topic: 'orders',
        partition: 0,
        state: 'STOPPED',
        aborted: [
          { offset: 3, producerId: 4001, producerEpoch: 0 },
          { offset: 4, producerId: 4002, producerEpoch: 0 },
        ],
        pidResetOffset: 5,
        lastMirrorPosition: expect.objectContaining({ offset: 3 }),
      }),
    ])
    expect(report.partitions[0]?.finalLeaderEpoch).toBeGreaterThan(report.partitions[0]?.lastMirrorPosition?.epoch ?? Infinity)
    expect(report.totals).toMatchObject({ transactionsAborted: 2, producersAborted: [4001, 4002], recordsAtRisk: 3 })
    expect(report.partitions[0]).not.toHaveProperty('markersUnread')

    // The destination unreachable: the report says so per partition instead of showing no markers as if none were written.
    const unreachable = {
      client: () => ({ readRecords: () => Promise.reject(Object.assign(new Error('every broker of b is stopped'), { code: 'SOURCE_UNAVAILABLE' })) }),
      ports: () => ({ host: { listGroupOffsets: () => Promise.reject(new Error('every broker of b is stopped')) } }),
    }
    const unread = OperationReport.parse(await buildReport({ engine: harness.engine, clusters: unreachable }, accepted.operation))
    expect(unread.partitions).toEqual([
      expect.objectContaining({ topic: 'orders', partition: 0, aborted: [], pidResetOffset: null, markersUnread: 'SOURCE_UNAVAILABLE: every broker of b is stopped' }),
    ])
  })

  it('refuses a second failover of the same partitions while the first runs (CONFLICT naming it)', async () => {
    const api = await setUp()
    const first = await api.failover('dr', { confirm: 'dr', force: ['lag-threshold'] })
    const second = await refusal(api.failover('dr', { confirm: 'dr', force: ['lag-threshold'] }))
    expect(second.code).toBe('CONFLICT')
    expect(second.details?.operation).toBe(first.operation)
    await harness.run(5)
    await harness.engine.awaitOperation(first.operation)
    expect(api.operations(undefined).map((operation) => operation.id)).toEqual([first.operation])
  })

  it('keeps the older reading for callers that name no forced gates: warnings only inform', async () => {
    const api = await setUp()
    const accepted = await api.failover('dr', { confirm: 'dr' })
    await harness.run(5)
    expect((await harness.engine.awaitOperation(accepted.operation)).forcedGates).toEqual([])
  })
})
