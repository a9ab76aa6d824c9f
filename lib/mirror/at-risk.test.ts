import { describe, expect, it } from 'vitest'
import { lastFetchReading, partitionAtRisk, recordsAtRisk, totalAtRisk, type AtRiskRow } from './at-risk'
import { buildFailoverPlan, type FailoverPartitionInput } from './failover-plan'

const T0 = 1_764_400_000_000

describe('recordsAtRisk', () => {
  it('is exact from a current reading of the source', () => {
    expect(recordsAtRisk({ now: T0, mirroredOffset: 3, source: { logEndOffset: 6, timeAtRiskMs: 5_000, at: T0 }, lastFetch: null })).toEqual({ records: 3, timeMs: 5_000, known: true, asOf: T0 })
    expect(recordsAtRisk({ now: T0, mirroredOffset: 6, source: { logEndOffset: 6, timeAtRiskMs: null, at: T0 }, lastFetch: null })).toEqual({ records: 0, timeMs: 0, known: true, asOf: T0 })
  })

  it('falls back to lower bounds from the last successful fetch, growing with the clock', () => {
    const lastFetch = { highWatermark: 204, at: T0, timeLagFrom: T0 - 5_000 }
    expect(recordsAtRisk({ now: T0 + 31_000, mirroredOffset: 62, source: null, lastFetch })).toEqual({ records: 142, timeMs: 36_000, known: false, asOf: T0 })
    expect(recordsAtRisk({ now: T0 + 60_000, mirroredOffset: 62, source: null, lastFetch }).timeMs).toBe(65_000)
  })

  it('is unknown with neither', () => {
    expect(recordsAtRisk({ now: T0, mirroredOffset: 0, source: null, lastFetch: null })).toEqual({ records: null, timeMs: null, known: false, asOf: null })
  })
})

describe('one answer for the pages and the failover plan', () => {
  // The engine's reading of a FAILED partition whose source went silent 31 s ago, 142 records behind.
  const runtime = { state: 'FAILED' as const, now: T0 + 31_000, sourceHighWatermark: 204, destinationHighWatermark: 62, oldestUnmirroredTimestamp: T0 - 5_000, lastFetchAt: T0 }
  // The same partition as GET .../partitions shows it (lib/mirror/partition-lag.ts made these figures).
  const row: AtRiskRow = { state: 'FAILED', sourceHighWatermark: 204, destinationLogEndOffset: 62, timeLagMs: 36_000, lastFetchAt: T0, lagKnown: false, lagAsOf: T0, timeLagFrom: T0 - 5_000 }
  const input: FailoverPartitionInput = { topic: 'orders', partition: 0, state: 'FAILED', destinationLogEndOffset: 62, source: null, lastFetch: lastFetchReading(runtime), openTransactions: [], consumerGroups: [] }

  it('gives the partition page, the mirror page and the wizard the same figures', () => {
    const plan = buildFailoverPlan({ mirror: 'm', now: runtime.now, sourceReachable: false, partitions: [input] })
    const planned = plan.partitions[0]!
    expect(planned.atRisk).toEqual({ records: 142, timeMs: 36_000, known: false, asOf: T0 })
    expect(partitionAtRisk(row, runtime.now)).toEqual(planned.atRisk)
    expect(totalAtRisk([partitionAtRisk(row, runtime.now)])).toEqual(planned.atRisk)
    // The plan's older fields keep their meaning: null when the source cannot be read.
    expect(planned).toMatchObject({ recordsAtRisk: null, timeAtRiskMs: null })
    expect(plan.gates.find((gate) => gate.name === 'lag-threshold')).toMatchObject({ ok: false, detail: 'at least 142 record(s) at risk in orders-0' })
  })

  it("counts from Mirrorboard's own reading of the source when the mirror's link does not answer", () => {
    // The wizard's plan read the source directly (250 now); the mirror's rows kept that reading as their high watermark.
    const direct = { ...input, source: { logEndOffset: 250, oldestUnmirroredTimestamp: T0 - 5_000 } }
    const plan = buildFailoverPlan({ mirror: 'm', now: runtime.now, sourceReachable: false, sourceReadDirectly: true, partitions: [direct] })
    expect(plan.partitions[0]).toMatchObject({ recordsAtRisk: 188, timeAtRiskMs: 36_000, atRisk: { records: 188, known: true } })
    expect(plan.gates.find((gate) => gate.name === 'source-reachable')).toMatchObject({ ok: false, detail: expect.stringContaining('Mirrorboard reads it directly') })
    const observedRow: AtRiskRow = { ...row, sourceHighWatermark: 250, lagAsOf: runtime.now }
    expect(partitionAtRisk(observedRow, runtime.now)).toMatchObject({ records: 188, known: false, asOf: runtime.now })
    // Without the direct reading the plan keeps to the last fetch's lower bound, as before.
    expect(buildFailoverPlan({ mirror: 'm', now: runtime.now, sourceReachable: false, partitions: [direct] }).partitions[0]).toMatchObject({ recordsAtRisk: null, atRisk: { records: 142 } })
  })

  it('has nothing at risk for partitions that no longer mirror', () => {
    expect(partitionAtRisk({ ...row, state: 'STOPPED' }, runtime.now)).toBeNull()
    expect(totalAtRisk([null, partitionAtRisk(row, runtime.now)])).toMatchObject({ records: 142, known: false })
  })
})

describe('totalAtRisk', () => {
  it('adds records, keeps the oldest time and reading, and is unknown as soon as one part is', () => {
    const a = { records: 3, timeMs: 500, known: true, asOf: T0 }
    const b = { records: 4, timeMs: 900, known: false, asOf: T0 - 10 }
    expect(totalAtRisk([a, b])).toEqual({ records: 7, timeMs: 900, known: false, asOf: T0 - 10 })
    expect(totalAtRisk([a, { records: null, timeMs: null, known: false, asOf: null }])).toMatchObject({ records: null, timeMs: null, known: false })
    expect(totalAtRisk([a, { records: 0, timeMs: null, known: true, asOf: T0 }])).toEqual({ records: 3, timeMs: 500, known: true, asOf: T0 })
  })
})
