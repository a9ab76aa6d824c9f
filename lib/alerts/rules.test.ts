import { describe, expect, it } from 'vitest'
import type { MirrorFigures } from './figures'
import { drillCadence } from '../drill/cadence'
import { CALM_FIGURES } from './testing/figures'
import { ALERT_RULES, lagGrowth, ruleNamed, type AlertRuleName, type LagSample } from './rules'

const calm: MirrorFigures = { ...CALM_FIGURES, partitionsByState: { MIRRORING: 4 }, maxFetchAgeSeconds: 0.3 }

function evaluate(name: AlertRuleName, figures: Partial<MirrorFigures>, history: LagSample[] = []) {
  return ruleNamed(name)!.evaluate({ ...calm, ...figures }, history)
}

describe('the built-in evaluation of each rule', () => {
  it('finds nothing on a calm mirror', () => {
    for (const rule of ALERT_RULES) expect(rule.evaluate(calm, [[0, 0], [60_000, 0]])).toBeNull()
  })

  it('PartitionFailed names the longest-failed partitions and counts the rest', () => {
    const failedExamples = Array.from({ length: 5 }, (_, partition) => ({ topic: 'orders', partition, error: partition === 0 ? 'source unreachable' : null }))
    const finding = evaluate('PartitionFailed', { partitionsByState: { MIRRORING: 1, FAILED: 7 }, failedExamples })
    expect(finding).toEqual({ value: 7, summary: '7 partitions of mirror dr FAILED: orders-0 (source unreachable), orders-1, orders-2, orders-3, orders-4, and 2 more' })
  })

  it('PartitionFailed names the topic when every FAILED partition is listed and in it, and the partition when it is one', () => {
    const examples = (topics: string[]) => topics.map((topic, partition) => ({ topic, partition, error: null }))
    expect(evaluate('PartitionFailed', { partitionsByState: { FAILED: 1 }, failedExamples: examples(['orders']) })).toMatchObject({ topic: 'orders', partition: 0 })
    const oneTopic = evaluate('PartitionFailed', { partitionsByState: { FAILED: 2 }, failedExamples: examples(['orders', 'orders']) })
    expect(oneTopic).toMatchObject({ topic: 'orders' })
    expect(oneTopic).not.toHaveProperty('partition')
    expect(evaluate('PartitionFailed', { partitionsByState: { FAILED: 2 }, failedExamples: examples(['orders', 'payments']) })).not.toHaveProperty('topic')
    // Seven FAILED, five listed: the two not listed may be in another topic.
    expect(evaluate('PartitionFailed', { partitionsByState: { FAILED: 7 }, failedExamples: examples(Array(5).fill('orders')) })).not.toHaveProperty('topic')
  })

  it('MirrorLagGrowing needs growth over the window and an oldest unmirrored record over 60 s', () => {
    const growing: LagSample[] = Array.from({ length: 25 }, (_, i) => [i * 15_000, i * 100])
    expect(evaluate('MirrorLagGrowing', { maxTimeLagSeconds: 90 }, growing)).toMatchObject({ value: 2000 })
    expect(evaluate('MirrorLagGrowing', { maxTimeLagSeconds: 30 }, growing)).toBeNull()
    const steady: LagSample[] = growing.map(([t]) => [t, 500])
    expect(evaluate('MirrorLagGrowing', { maxTimeLagSeconds: 90 }, steady)).toBeNull()
    expect(evaluate('MirrorLagGrowing', { maxTimeLagSeconds: 90 }, growing.slice(0, 1))).toBeNull()
  })

  it('lagGrowth measures newest minus the oldest sample within the window', () => {
    expect(lagGrowth([[0, 0], [100_000, 50], [400_000, 300]], 300)).toBe(250)
    expect(lagGrowth([[0, 10]], 300)).toBeNull()
    expect(lagGrowth([], 300)).toBeNull()
  })

  it('RpoObjectiveBreached holds the RPO figures to the objective, a lower bound over it counting; without an objective it stays quiet', () => {
    expect(evaluate('RpoObjectiveBreached', { rpo: { records: 5_000, seconds: 600, known: true } })).toBeNull()
    expect(evaluate('RpoObjectiveBreached', { rpo: { records: 10, seconds: 1, known: true }, rpoObjective: { records: 10, seconds: 30 } })).toBeNull()
    expect(evaluate('RpoObjectiveBreached', { rpo: { records: 11, seconds: 1, known: true }, rpoObjective: { records: 10, seconds: null } })).toEqual({
      value: 11,
      summary: 'A failover of mirror dr now would lose 11 records at risk (objective 10 records)',
    })
    expect(evaluate('RpoObjectiveBreached', { rpo: { records: 3, seconds: 95.4, known: false }, rpoObjective: { records: 100, seconds: 60 } })?.summary).toBe(
      'A failover of mirror dr now would lose at least 95 s at risk (objective 60 s)',
    )
  })

  it('FetchStale, SplitBrainWrites and OperationFailed read their figure; OperationFailed tells operations apart by label', () => {
    expect(evaluate('FetchStale', { staleFetchPartitions: 3, maxFetchAgeSeconds: 41.2 })?.summary).toBe('3 MIRRORING partitions of mirror dr have not fetched for over 30 s (longest 41 s)')
    expect(evaluate('SplitBrainWrites', { splitBrainRecords: 1 })?.summary).toBe('The old source of mirror dr took 1 record since the failover')
    expect(evaluate('OperationFailed', { failedOperation: { id: 'op-7', kind: 'failover', finishedAt: 5 } })).toEqual({
      value: 1,
      summary: 'Operation op-7 (failover) of mirror dr failed',
      labels: { operation: 'op-7', kind: 'failover' },
    })
  })

  it('DrillOverdue fires past the drillIntervalDays objective or with none ever succeeded, never without an objective', () => {
    const day = 24 * 60 * 60 * 1000
    const cadence = (lastSucceededAt: number | null, intervalDays: number | null, now: number) => ({ drills: drillCadence({ lastSucceededAt, intervalDays, now }) })
    expect(evaluate('DrillOverdue', cadence(0, 7, 9.2 * day))).toEqual({ value: 1, summary: 'The failover of mirror dr was last rehearsed successfully 9 days ago; its objective is a drill every 7 days' })
    expect(evaluate('DrillOverdue', cadence(null, 1, 0))).toEqual({ value: 1, summary: 'The failover of mirror dr was never rehearsed successfully; its objective is a drill every day' })
    expect(evaluate('DrillOverdue', cadence(0, 7, 6.9 * day))).toBeNull()
    expect(evaluate('DrillOverdue', cadence(0, 7, 7 * day))).toBeNull()
    expect(evaluate('DrillOverdue', cadence(0, null, 400 * day))).toBeNull()
    expect(evaluate('DrillOverdue', cadence(null, null, 0))).toBeNull()
    expect(evaluate('DrillOverdue', { drills: null })).toBeNull()
  })
})
