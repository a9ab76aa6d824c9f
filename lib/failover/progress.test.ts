import { describe, expect, it } from 'vitest'
import { SLOW_STEP_MS, summarizeProgress, trackSteps, type ProgressPartition } from './progress'

function partitions(count: number, patch: (index: number) => Partial<ProgressPartition> = () => ({})): ProgressPartition[] {
  return Array.from({ length: count }, (_, index) => ({ topic: 't', partition: index, step: 'removeFetcher' as const, state: 'STOPPING', error: null, ...patch(index) }))
}

describe('trackSteps', () => {
  it('keeps the time a partition reached its step while the step does not move', () => {
    const first = trackSteps(new Map(), partitions(2), 1_000)
    const second = trackSteps(first, partitions(2, (i) => (i === 1 ? { step: 'bumpEpoch' } : {})), 3_000)
    expect([...second.values()].map((seen) => [seen.step, seen.since])).toEqual([
      ['removeFetcher', 1_000],
      ['bumpEpoch', 3_000],
    ])
  })
})

describe('summarizeProgress', () => {
  it('counts 10,000 partitions by step and lists only the slow and failed ones', () => {
    const list = partitions(10_000, (i) => (i < 9_000 ? { step: 'done', state: 'STOPPED' } : i < 9_990 ? { step: 'abortTransactions' } : { state: 'FAILED', error: 'disk' }))
    const seen = trackSteps(new Map(), list, 0)
    const summary = summarizeProgress(list, seen, SLOW_STEP_MS + 1)
    expect(summary.total).toBe(10_000)
    expect(summary.done).toBe(9_000)
    expect(summary.byStep.abortTransactions).toBe(990)
    expect(summary.failedCount).toBe(10)
    expect(summary.failed).toHaveLength(10)
    expect(summary.slowCount).toBe(990)
    expect(summary.slow).toHaveLength(20)
    expect(summary.fraction).toBeGreaterThan(0.9)
    expect(summary.fraction).toBeLessThan(1)
  })

  it('lists nothing as slow before a step has taken SLOW_STEP_MS', () => {
    const list = partitions(3)
    expect(summarizeProgress(list, trackSteps(new Map(), list, 0), SLOW_STEP_MS).slowCount).toBe(0)
  })

  it('is complete when every partition is done', () => {
    const list = partitions(2, () => ({ step: 'done', state: 'STOPPED' }))
    expect(summarizeProgress(list, new Map(), 0)).toMatchObject({ done: 2, fraction: 1, failedCount: 0 })
  })
})
