import { describe, expect, it } from 'vitest'
import { EMPTY_EVALUATOR_STATE, evaluateAlerts, type EvaluatorState } from './evaluate'
import type { MirrorFigures } from './figures'
import { CALM_FIGURES as calm, ONE_FAILED_FIGURES as failed } from './testing/figures'

/** Runs evaluations at the given times (ms) with the figures of each, returning every change with its time. */
function run(steps: Array<[number, MirrorFigures[]]>, start: EvaluatorState = EMPTY_EVALUATOR_STATE) {
  let state = start
  const changes: Array<[number, string, string]> = []
  for (const [now, mirrors] of steps) {
    const result = evaluateAlerts(state, mirrors, now)
    state = result.state
    for (const change of result.changes) changes.push([now, change.kind, `${change.alert.rule}:${change.alert.state}`])
  }
  return { state, changes }
}

describe('evaluateAlerts', () => {
  it('keeps an alert pending until its condition held for the rule\'s for, then fires it once, and resolves it when the condition goes', () => {
    const { changes, state } = run([
      [0, [calm]],
      [5_000, [failed]],
      [30_000, [failed]],
      [35_000, [failed]],
      [40_000, [failed]],
      [45_000, [calm]],
    ])
    expect(changes).toEqual([
      [35_000, 'firing', 'PartitionFailed:firing'],
      [45_000, 'resolved', 'PartitionFailed:resolved'],
    ])
    expect(state.active.size).toBe(0)
  })

  it('drops a pending alert whose condition goes before its for, and starts the clock again next time', () => {
    const { changes } = run([
      [0, [failed]],
      [20_000, [calm]],
      [25_000, [failed]],
      [50_000, [failed]],
      [55_000, [failed]],
    ])
    expect(changes).toEqual([[55_000, 'firing', 'PartitionFailed:firing']])
  })

  it('fires a rule with no for at its first evaluation, with since, firedAt and a stable id', () => {
    const first = evaluateAlerts(EMPTY_EVALUATOR_STATE, [{ ...calm, splitBrainRecords: 3 }], 1_000)
    expect(first.changes).toEqual([{ kind: 'firing', alert: expect.objectContaining({ rule: 'SplitBrainWrites', state: 'firing', since: 1_000, firedAt: 1_000, value: 3 }) }])
    const second = evaluateAlerts(first.state, [{ ...calm, splitBrainRecords: 5 }], 6_000)
    expect(second.changes).toEqual([{ kind: 'updated', alert: expect.objectContaining({ id: first.changes[0]!.alert.id, value: 5, since: 1_000, firedAt: 1_000 }) }])
    expect(evaluateAlerts(second.state, [{ ...calm, splitBrainRecords: 5 }], 11_000).changes).toEqual([])
  })

  it('resolves the firing alerts of a mirror that is gone', () => {
    const { changes } = run([
      [0, [{ ...calm, splitBrainRecords: 1 }]],
      [5_000, []],
    ])
    expect(changes).toEqual([
      [0, 'firing', 'SplitBrainWrites:firing'],
      [5_000, 'resolved', 'SplitBrainWrites:resolved'],
    ])
  })

  it('tells alerts of one rule apart by their labels (a newer failed operation is another alert)', () => {
    const op = (id: string): MirrorFigures => ({ ...calm, failedOperation: { id, kind: 'failover', finishedAt: 0 } })
    const { changes } = run([
      [0, [op('op-1')]],
      [5_000, [op('op-2')]],
    ])
    expect(changes).toEqual([
      [0, 'firing', 'OperationFailed:firing'],
      [5_000, 'firing', 'OperationFailed:firing'],
      [5_000, 'resolved', 'OperationFailed:resolved'],
    ])
  })

  it('keeps each mirror\'s lag history over the look-back window for MirrorLagGrowing', () => {
    const steps: Array<[number, MirrorFigures[]]> = []
    for (let t = 0; t <= 10 * 60_000; t += 5_000) steps.push([t, [{ ...calm, totalOffsetLag: t / 100, maxTimeLagSeconds: 90 }]])
    const { changes, state } = run(steps)
    // Growth is seen from the second sample on; the alert fires 2 minutes later.
    expect(changes.filter(([, kind]) => kind !== 'updated')).toEqual([[125_000, 'firing', 'MirrorLagGrowing:firing']])
    expect(changes.filter(([, kind]) => kind === 'updated').length).toBeGreaterThan(0)
    const history = state.lagHistory.get('dr')!
    expect(history[0]![0]).toBeGreaterThanOrEqual(10 * 60_000 - 360_000)
  })
})
