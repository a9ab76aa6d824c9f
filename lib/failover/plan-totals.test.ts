import { describe, expect, it } from 'vitest'
import { byImpact, hasImpact, planTotals, type PlanPartitionLike } from './plan-totals'

function partition(patch: Partial<PlanPartitionLike> & Pick<PlanPartitionLike, 'partition'>): PlanPartitionLike {
  return {
    topic: 'orders',
    state: 'MIRRORING',
    action: 'stop',
    mirroredOffset: 10,
    sourceLogEndOffset: 10,
    recordsAtRisk: 0,
    timeAtRiskMs: 0,
    transactionsToAbort: [],
    consumerGroupsBehind: [],
    ...patch,
  }
}

// The KIP's worked example: mirrored to 3, source at 6, 4001 and 4002 open on the destination.
const workedExample = partition({
  partition: 0,
  state: 'PAUSED',
  mirroredOffset: 3,
  sourceLogEndOffset: 6,
  recordsAtRisk: 3,
  timeAtRiskMs: 4_000,
  transactionsToAbort: [
    { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
    { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
  ],
})

describe('planTotals', () => {
  it('adds up the worked example: 3 records at risk, two transactions of producers 4001 and 4002', () => {
    expect(planTotals([workedExample])).toMatchObject({
      partitions: 1,
      partitionsToStop: 1,
      recordsAtRisk: 3,
      partitionsWithRecordsAtRisk: 1,
      maxTimeAtRiskMs: 4_000,
      transactionsToAbort: 2,
      producersToAbort: [4001, 4002],
    })
  })

  it('says unknown (null) rather than 0 when the source did not answer for a partition', () => {
    const totals = planTotals([workedExample, partition({ partition: 1, recordsAtRisk: null, timeAtRiskMs: null, sourceLogEndOffset: null })])
    expect(totals.recordsAtRisk).toBeNull()
    expect(totals.maxTimeAtRiskMs).toBeNull()
    expect(totals.atRisk).toMatchObject({ records: null, known: false })
  })

  it("gives the at-risk total as the mirror page does: a lower bound from the last fetch where the source is silent, never 'unknown' when one is known", () => {
    const asOf = 1_796_529_691_706
    const silent = partition({ partition: 1, state: 'FAILED', recordsAtRisk: null, timeAtRiskMs: null, sourceLogEndOffset: null, atRisk: { records: 142, timeMs: 31_000, known: false, asOf } })
    const totals = planTotals([{ ...workedExample, atRisk: { records: 3, timeMs: 4_000, known: true, asOf: asOf + 5_000 } }, silent])
    expect(totals.recordsAtRisk).toBeNull()
    expect(totals.atRisk).toEqual({ records: 145, timeMs: 31_000, known: false, asOf })
  })

  it('leaves already stopped partitions out of what the failover does, and counts FAILED ones it forces', () => {
    const totals = planTotals([
      partition({ partition: 0, state: 'STOPPED', action: 'alreadyStopped', recordsAtRisk: 5, transactionsToAbort: [] }),
      partition({ partition: 1, state: 'FAILED', consumerGroupsBehind: [{ groupId: 'billing', committedOffset: 2 }] }),
    ])
    expect(totals).toMatchObject({ partitionsToStop: 1, partitionsAlreadyStopped: 1, recordsAtRisk: 0, failedPartitionsForced: 1, consumerGroupsBehind: ['billing'] })
  })
})

describe('ordering and filtering', () => {
  it('puts the partitions with most records at risk (unknown first) before quiet ones', () => {
    const quiet = partition({ partition: 2 })
    const unknown = partition({ partition: 3, recordsAtRisk: null })
    expect([quiet, workedExample, unknown].sort(byImpact).map((p) => p.partition)).toEqual([3, 0, 2])
  })

  it('finds a partition without loss, transactions or groups behind to have no impact', () => {
    expect(hasImpact(partition({ partition: 1 }))).toBe(false)
    expect(hasImpact(workedExample)).toBe(true)
  })
})
