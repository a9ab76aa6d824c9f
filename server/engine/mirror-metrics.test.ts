import { afterEach, describe, expect, it } from 'vitest'
import { renderPrometheus } from '@/server/observability/metrics'
import { mirrorMetrics } from './mirror-metrics'
import { createEngineHarness, type EngineHarness } from './testing/harness'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

async function mirrorOf(topics: Record<string, number>): Promise<EngineHarness> {
  harness = await createEngineHarness({ clusters: { a: {}, b: {} } })
  const a = harness.cluster('a')
  for (const [name, partitions] of Object.entries(topics)) await a.createTopic({ name, partitions, replicationFactor: 1 })
  await harness.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: Object.keys(topics), config: { 'mirror.metadata.refresh.interval.ms': 1_000 } })
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
  })
})
