import { describe, expect, it } from 'vitest'
import { LISTED_PARTITIONS, SLOW_STEP_MS, summarizeProgress, trackSteps, type ProgressPartition } from './progress'

function partitions(count: number, patch: (index: number) => Partial<ProgressPartition> = () => ({})): ProgressPartition[] {
  return Array.from({ length: count }, (_, index) => ({ topic: 't', partition: index, step: 'removeFetcher' as const, state: 'STOPPING', error: null, ...patch(index) }))
}

describe('trackSteps', () => {
  it('keeps the time a partition reached its step while the step does not move', () => {
    const first = trackSteps(null, partitions(2), 1_000)
    const second = trackSteps(first, partitions(2, (i) => (i === 1 ? { step: 'bumpEpoch' } : {})), 3_000)
    expect([...second.since]).toEqual([1_000, 3_000])
  })

  it('keeps the times of the entries a patched list shares with the previous one', () => {
    const list = partitions(3)
    const first = trackSteps(null, list, 1_000)
    const patched = [...list]
    patched[2] = { ...list[2]!, step: 'persistPosition' }
    expect([...trackSteps(first, patched, 2_000).since]).toEqual([1_000, 1_000, 2_000])
  })

  it('matches a list of another length by name', () => {
    const first = trackSteps(null, partitions(2), 1_000)
    const longer = partitions(3, (i) => (i === 0 ? { step: 'bumpEpoch' } : {}))
    expect([...trackSteps(first, longer, 5_000).since]).toEqual([5_000, 1_000, 5_000])
  })
})

describe('summarizeProgress', () => {
  it('counts 10,000 partitions by step and lists only the slow and failed ones', () => {
    const list = partitions(10_000, (i) => (i < 9_000 ? { step: 'done', state: 'STOPPED' } : i < 9_990 ? { step: 'abortTransactions' } : { state: 'FAILED', error: 'disk' }))
    const seen = trackSteps(null, list, 0)
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

  it('lists the slowest first, as many as LISTED_PARTITIONS, with how long each has been on its step', () => {
    const list = partitions(100)
    // Partition i reached its step at i * 10 ms, in a shuffled order of arrival.
    const since = Float64Array.from(list, (_, index) => ((index * 37) % 100) * 10)
    const summary = summarizeProgress(list, { partitions: list, since }, 10 * SLOW_STEP_MS)
    expect(summary.slowCount).toBe(100)
    expect(summary.slow).toHaveLength(LISTED_PARTITIONS)
    expect(summary.slow.map((partition) => partition.forMs)).toEqual(Array.from({ length: LISTED_PARTITIONS }, (_, rank) => 10 * SLOW_STEP_MS - rank * 10))
    expect(summary.slow[0]!.partition).toBe(0)
  })

  it('lists nothing as slow before a step has taken SLOW_STEP_MS', () => {
    const list = partitions(3)
    expect(summarizeProgress(list, trackSteps(null, list, 0), SLOW_STEP_MS).slowCount).toBe(0)
  })

  it('is complete when every partition is done', () => {
    const list = partitions(2, () => ({ step: 'done', state: 'STOPPED' }))
    expect(summarizeProgress(list, null, 0)).toMatchObject({ done: 2, fraction: 1, failedCount: 0 })
  })
})
