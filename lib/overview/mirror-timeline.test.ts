import { describe, expect, it } from 'vitest'
import type { MirrorPartitionState } from '../mirror/states'
import { mirrorTimeline, type TimelineInput } from './mirror-timeline'

const T0 = 1_764_400_000_000
type Step = [MirrorPartitionState, MirrorPartitionState, number, string?]

/** `count` partitions of orders with the same steps, each a few ms after the previous (as the engine does them). */
function partitions(count: number, steps: (index: number) => Step[]): TimelineInput[] {
  return Array.from({ length: count }, (_, index) => ({
    topic: 'orders',
    partition: index,
    transitions: steps(index).map(([from, to, at, reason]) => ({ from, to, at: at + index * 5, reason: reason ?? `${from} to ${to}`, ...(to === 'FAILED' ? { error: `source unreachable (${at})` } : {}) })),
  }))
}

const rows = (entries: ReturnType<typeof mirrorTimeline>) =>
  entries.map((entry) => (entry.kind === 'storm' ? `${entry.path} × ${entry.failures} (${entry.partitions})` : `${entry.from} → ${entry.to} (${entry.partitions})`))

describe('mirrorTimeline', () => {
  it('tells a cut link as: the break, one storm row with its count, the recovery, what the operator did', () => {
    const timeline = mirrorTimeline(
      partitions(21, (index) => {
        const steps: Step[] = [['PREPARING', 'MIRRORING', T0], ['MIRRORING', 'FAILED', T0 + 60_000]]
        // Each partition retries at its own backoff: 11 failures in all, spread over minutes.
        for (let retry = 1; retry <= 10; retry++) steps.push(['FAILED', 'MIRRORING', T0 + 60_000 + retry * 9_000 + index * 300], ['MIRRORING', 'FAILED', T0 + 60_000 + retry * 9_000 + index * 300 + 100])
        steps.push(['FAILED', 'MIRRORING', T0 + 300_000, 'recover requested'], ['MIRRORING', 'PAUSING', T0 + 400_000, 'pause requested'], ['PAUSING', 'PAUSED', T0 + 400_100])
        return steps
      }),
    )
    expect(rows(timeline)).toEqual([
      'PREPARING → MIRRORING (21)',
      'MIRRORING → FAILED (21)',
      'FAILED ⇄ MIRRORING × 10 (21)',
      'FAILED → MIRRORING (21)',
      'MIRRORING → PAUSING (21)',
      'PAUSING → PAUSED (21)',
    ])
    const storm = timeline[2]!
    expect(storm).toMatchObject({ at: T0 + 69_000, error: expect.stringMatching(/^source unreachable/) })
    expect(storm.until).toBeGreaterThan(T0 + 150_000)
    expect(timeline[3]).toMatchObject({ reason: 'recover requested', at: T0 + 300_000 })
  })

  it('folds a storm still going on into its one row as it grows, retries under way included, never a newest "FAILED → MIRRORING"', () => {
    // Each partition broke at T0 and retries; partition i is mid-retry (FAILED → MIRRORING) or FAILED again now.
    const history = (retries: number) =>
      partitions(21, (index) => {
        const steps: Step[] = [['PREPARING', 'MIRRORING', T0 - 60_000], ['MIRRORING', 'FAILED', T0]]
        for (let retry = 1; retry <= retries; retry++) steps.push(['FAILED', 'MIRRORING', T0 + retry * 9_000 + index * 300], ['MIRRORING', 'FAILED', T0 + retry * 9_000 + index * 300 + 100])
        if (index % 2 === 0) steps.push(['FAILED', 'MIRRORING', T0 + (retries + 1) * 9_000 + index * 300])
        return steps
      })
    for (const retries of [1, 2, 5]) {
      const timeline = mirrorTimeline(history(retries))
      expect(rows(timeline), `${retries} retries`).toEqual(['PREPARING → MIRRORING (21)', 'MIRRORING → FAILED (21)', `FAILED ⇄ MIRRORING × ${retries} (21)`])
      expect(timeline.at(-1)).toMatchObject({ ongoing: true })
    }
    // Healed: every partition left FAILED, so the last step is the recovery, on its own row.
    const healed = mirrorTimeline(partitions(3, () => [['MIRRORING', 'FAILED', T0], ['FAILED', 'MIRRORING', T0 + 5_000], ['MIRRORING', 'FAILED', T0 + 5_100], ['FAILED', 'MIRRORING', T0 + 9_000], ['MIRRORING', 'FAILED', T0 + 9_100], ['FAILED', 'MIRRORING', T0 + 20_000]]))
    expect(rows(healed)).toEqual(['MIRRORING → FAILED (3)', 'FAILED ⇄ MIRRORING × 2 (3)', 'FAILED → MIRRORING (3)'])
    expect(healed[1]!.ongoing).toBeUndefined()
  })

  it('keeps a single retry that worked as rows, not a storm', () => {
    const timeline = mirrorTimeline(partitions(3, () => [['MIRRORING', 'FAILED', T0], ['FAILED', 'MIRRORING', T0 + 5_000], ['MIRRORING', 'FAILED', T0 + 5_100], ['FAILED', 'MIRRORING', T0 + 15_000]]))
    expect(rows(timeline)).toEqual(['MIRRORING → FAILED (3)', 'FAILED → MIRRORING (3)', 'MIRRORING → FAILED (3)', 'FAILED → MIRRORING (3)'])
  })

  it('does not count a failover out of FAILED as a retry', () => {
    const timeline = mirrorTimeline(partitions(2, () => [['MIRRORING', 'FAILED', T0], ['FAILED', 'STOPPING', T0 + 10_000, 'failover'], ['STOPPING', 'STOPPED', T0 + 10_500]]))
    expect(rows(timeline)).toEqual(['MIRRORING → FAILED (2)', 'FAILED → STOPPING (2)', 'STOPPING → STOPPED (2)'])
  })
})
