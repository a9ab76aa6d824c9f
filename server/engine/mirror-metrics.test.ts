import { afterEach, describe, expect, it } from 'vitest'
import { renderPrometheus } from '@/server/observability/metrics'
import { mirrorMetrics } from './mirror-metrics'
import { createEngineHarness, type EngineHarness } from './testing/harness'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

/** The engine's log lines, as an operator reads them. */
let logged: Array<{ message: string; fields: Record<string, unknown> }> = []

async function mirrorOf(topics: Record<string, number>, config: Record<string, number> = {}): Promise<EngineHarness> {
  logged = []
  harness = await createEngineHarness({ clusters: { a: {}, b: {} }, log: (message, fields) => logged.push({ message, fields }) })
  const a = harness.cluster('a')
  for (const [name, partitions] of Object.entries(topics)) await a.createTopic({ name, partitions, replicationFactor: 1 })
  await harness.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: Object.keys(topics), config: { 'mirror.metadata.refresh.interval.ms': 1_000, ...config } })
  await harness.run(3)
  return harness
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('mirror metric families', () => {
  it('expose per-partition lag and fetch age, the recovery point and the mirrored totals, from the figures the rules read', async () => {
    await mirrorOf({ orders: 2 })
    await harness.cluster('a').produce('orders', { partition: 0, records: [{ value: 'a' }, { value: 'b' }] })
    await harness.run(2)
    const text = await renderPrometheus(mirrorMetrics(harness.engine))
    expect(sample(text, 'mirrorboard_partitions{mirror="dr",state="MIRRORING"}')).toBe(2)
    expect(sample(text, 'mirrorboard_partitions{mirror="dr",state="FAILED"}')).toBe(0)
    expect(sample(text, 'mirrorboard_partition_offset_lag{mirror="dr",topic="orders",partition="0"}')).toBe(0)
    expect(sample(text, 'mirrorboard_partition_last_fetch_age_seconds{mirror="dr",topic="orders",partition="1"}')).toBeLessThan(1)
    expect(sample(text, 'mirrorboard_mirrored_records_total{mirror="dr"}')).toBe(2)
    expect(sample(text, 'mirrorboard_mirror_rpo_records{mirror="dr"}')).toBe(0)
    expect(sample(text, 'mirrorboard_mirror_rpo_seconds{mirror="dr"}')).toBe(0)
    expect(sample(text, 'mirrorboard_mirror_rpo_known{mirror="dr"}')).toBe(1)
    expect(sample(text, 'mirrorboard_mirror_lag_known{mirror="dr"}')).toBe(1)
    expect(sample(text, 'mirrorboard_sync_errors_total{mirror="dr",kind="sourceUnreachable"}')).toBe(0)
    expect(text).not.toContain('mirrorboard_operation_failed{')
  })

  it('leave a partition without a known lag out instead of reading 0, and count it in the recovery point as a lower bound', async () => {
    await mirrorOf({ orders: 1, payments: 1 })
    await harness.cluster('a').deleteTopic('payments')
    await harness.run(3, 1_000)
    const figures = harness.engine.mirrorFigures('dr')
    expect(figures.partitionsByState).toMatchObject({ MIRRORING: 1, FAILED: 1 })
    expect(figures.failedExamples).toEqual([expect.objectContaining({ topic: 'payments', partition: 0 })])
    const text = await renderPrometheus(mirrorMetrics(harness.engine))
    expect(sample(text, 'mirrorboard_partitions{mirror="dr",state="FAILED"}')).toBe(1)
    expect(text).not.toContain('mirrorboard_partition_offset_lag{mirror="dr",topic="payments"')
    expect(text).not.toContain('mirrorboard_partition_last_fetch_age_seconds{mirror="dr",topic="payments"')
    expect(sample(text, 'mirrorboard_mirror_rpo_known{mirror="dr"}')).toBe(0)
  })

  it("name KIP-1279's families in their help: per-state gauges, failed partitions, sync error meters, the fetcher's MaxLag", async () => {
    await mirrorOf({ orders: 1 }, { 'fetch.max.bytes': 1 })
    const a = harness.cluster('a')
    for (const value of ['a', 'b', 'c']) await a.produce('orders', { partition: 0, records: [{ value }] })
    // One batch per fetch: after one round the source is two records ahead.
    await harness.run(1)
    const text = await renderPrometheus(mirrorMetrics(harness.engine))
    const help = (name: string) => text.split('\n').find((line) => line.startsWith(`# HELP ${name} `)) ?? ''
    expect(help('mirrorboard_partitions')).toContain(
      "KIP-1279's gauges: LogAlignmentPartitionState (PREPARING), EpochFencingPartitionState, UleRecoveryPartitionState (ULE_LOG_TRUNCATION), MirroringPartitionState, PausingPartitionState, PausedPartitionState, StoppingPartitionState, StoppedPartitionState, FailedPartitionState.",
    )
    expect(help('mirrorboard_failed_partitions')).toContain('FailedPartitionsCount')
    expect(help('mirrorboard_mirror_max_offset_lag')).toContain('MaxLag')
    expect(help('mirrorboard_sync_errors_total')).toContain('sourceUnreachable = TopicMetadataRefreshError, topicConfigSync = TopicConfigSyncError, groupOffsetSync = ConsumerGroupOffsetSyncError')
    expect(sample(text, 'mirrorboard_mirror_max_offset_lag{mirror="dr"}')).toBe(2)
    expect(sample(text, 'mirrorboard_failed_partitions{mirror="dr"}')).toBe(0)
    await harness.run(3)
    expect(sample(await renderPrometheus(mirrorMetrics(harness.engine)), 'mirrorboard_mirror_max_offset_lag{mirror="dr"}')).toBe(0)
  })

  it('count FAILED partitions, and leave the max lag out while no lag is known', async () => {
    await mirrorOf({ orders: 2 })
    const a = harness.cluster('a')
    const fetch = a.fetch.bind(a)
    a.fetch = async () => {
      throw new Error('source down')
    }
    await harness.run(1)
    a.fetch = fetch
    const text = await renderPrometheus(mirrorMetrics(harness.engine))
    expect(sample(text, 'mirrorboard_failed_partitions{mirror="dr"}')).toBe(2)
    expect(sample(text, 'mirrorboard_partitions{mirror="dr",state="FAILED"}')).toBe(2)
    expect(text).not.toContain('mirrorboard_mirror_max_offset_lag{')
  })

  it('count a topic config sync and a group offset sync that fail apart, and go on with the rest of the sync', async () => {
    await mirrorOf({ orders: 1, payments: 1 })
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    await a.alterTopicConfigs('orders', { 'retention.ms': '3600000' })
    await a.alterTopicConfigs('payments', { 'retention.ms': '7200000' })
    const alterTopicConfigs = b.alterTopicConfigs.bind(b)
    b.alterTopicConfigs = async (topic, configs) => {
      if (topic === 'orders') throw new Error('orders configs refused')
      return alterTopicConfigs(topic, configs)
    }
    const listGroupOffsets = b.listGroupOffsets.bind(b)
    b.listGroupOffsets = async () => {
      throw new Error('group coordinator down')
    }
    await harness.run(2, 1_000)
    b.alterTopicConfigs = alterTopicConfigs
    b.listGroupOffsets = listGroupOffsets
    const text = await renderPrometheus(mirrorMetrics(harness.engine))
    expect(sample(text, 'mirrorboard_sync_errors_total{mirror="dr",kind="topicConfigSync"}')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'mirrorboard_sync_errors_total{mirror="dr",kind="groupOffsetSync"}')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'mirrorboard_sync_errors_total{mirror="dr",kind="other"}')).toBe(0)
    // The other topic's configs were copied all the same.
    expect((await b.describeTopic('payments')).configs['retention.ms']).toBe('7200000')
    // The log says which step failed, for which mirror and topic, and why.
    expect(logged).toContainEqual({ message: 'sync: topic configs not copied', fields: { mirror: 'dr', topic: 'orders', error: 'Error: orders configs refused' } })
    expect(logged).toContainEqual({ message: 'sync: group offsets not synced', fields: { mirror: 'dr', error: 'Error: group coordinator down' } })
  })

  it('count a discovered topic that cannot start, and sync the mirrored ones all the same', async () => {
    await mirrorOf({ orders: 1 })
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    // A topic topics.include discovers, which the destination holds under another topic id: its start is refused.
    await b.createTopic({ name: 'audit', partitions: 1, replicationFactor: 1 })
    await a.createTopic({ name: 'audit', partitions: 1, replicationFactor: 1 })
    await harness.engine.updateMirrorConfig('dr', { 'topics.include': ['audit'] })
    await a.alterTopicConfigs('orders', { 'retention.ms': '3600000' })
    await harness.run(2, 1_000)
    const text = await renderPrometheus(mirrorMetrics(harness.engine))
    expect(sample(text, 'mirrorboard_sync_errors_total{mirror="dr",kind="topicStart"}')).toBeGreaterThanOrEqual(1)
    expect(logged).toContainEqual({ message: 'sync: start of discovered topics failed', fields: { error: 'EngineError: topic audit exists on b with a different topic id' } })
    expect(harness.engine.getMirror('dr').topics).toEqual(['orders'])
    expect((await b.describeTopic('orders')).configs['retention.ms']).toBe('3600000')
  })

  it('count failed syncs by kind', async () => {
    await mirrorOf({ orders: 1 })
    const source = harness.cluster('a')
    const describeTopics = source.describeTopics.bind(source)
    source.describeTopics = async () => {
      throw new Error('source down')
    }
    await harness.run(2, 1_000)
    source.describeTopics = describeTopics
    const text = await renderPrometheus(mirrorMetrics(harness.engine))
    expect(sample(text, 'mirrorboard_sync_errors_total{mirror="dr",kind="sourceUnreachable"}')).toBeGreaterThanOrEqual(1)
    expect(logged).toContainEqual({ message: 'sync: source unreachable', fields: { mirror: 'dr', error: 'Error: source down' } })
  })
})
