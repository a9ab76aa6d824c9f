import { describe, expect, it } from 'vitest'
import { buildFailoverPlan, consumerGroupBehind, type FailoverPartitionInput, type FailoverPreflightInput } from './failover-plan'

const NOW = 1_764_400_010_000

/** The excerpt's example: destination holds 0–2 (4001 from 0, 4002 at 2), the source reached offset 6. */
const workedExample: FailoverPartitionInput = {
  topic: 'orders',
  partition: 0,
  state: 'MIRRORING',
  destinationLogEndOffset: 3,
  source: { logEndOffset: 6, oldestUnmirroredTimestamp: NOW - 5000 },
  openTransactions: [
    { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
    { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
  ],
  consumerGroups: [
    { groupId: 'billing', destinationCommittedOffset: 2, sourceCommittedOffset: 5 },
    { groupId: 'audit', destinationCommittedOffset: 3, sourceCommittedOffset: 3 },
    { groupId: 'analytics', destinationCommittedOffset: null, sourceCommittedOffset: 1 },
    { groupId: 'unknown-on-source', destinationCommittedOffset: 1, sourceCommittedOffset: null },
  ],
}

function plan(overrides: Partial<FailoverPreflightInput> = {}) {
  return buildFailoverPlan({ mirror: 'dr', now: NOW, sourceReachable: true, partitions: [workedExample], ...overrides })
}

describe('buildFailoverPlan', () => {
  it('puts 3 records at risk and both transactions, in first-offset order, in the worked example', () => {
    const [partition] = plan().partitions
    expect(partition).toMatchObject({
      topic: 'orders',
      partition: 0,
      state: 'MIRRORING',
      action: 'stop',
      mirroredOffset: 3,
      sourceLogEndOffset: 6,
      recordsAtRisk: 3,
      timeAtRiskMs: 5000,
      transactionsToAbort: [
        { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
        { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
      ],
    })
  })

  it('lists the groups that will resume below their source position, by group id', () => {
    const [partition] = plan().partitions
    expect(partition?.consumerGroupsBehind).toEqual([
      { groupId: 'analytics', committedOffset: null, sourceCommittedOffset: 1, offsetsToReprocess: null, offsetsNotMirrored: 0 },
      { groupId: 'billing', committedOffset: 2, sourceCommittedOffset: 5, offsetsToReprocess: 1, offsetsNotMirrored: 2 },
    ])
  })

  it('reports unknown risk (null) and a warning, not a block, when the source is down', () => {
    const result = plan({ sourceReachable: false })
    expect(result.partitions[0]).toMatchObject({ sourceLogEndOffset: null, recordsAtRisk: null, timeAtRiskMs: null, mirroredOffset: 3 })
    expect(result.gates.find((gate) => gate.name === 'source-reachable')).toMatchObject({ ok: false, severity: 'warning' })
    expect(result.canProceed).toBe(true)
  })

  it('warns about records at risk above the threshold and passes within it', () => {
    expect(plan().gates.find((gate) => gate.name === 'lag-threshold')).toMatchObject({ ok: false, severity: 'warning', detail: '3 record(s) at risk in orders-0' })
    expect(plan({ recordsAtRiskThreshold: 3 }).gates.find((gate) => gate.name === 'lag-threshold')?.ok).toBe(true)
  })

  it('#39 lets FAILED partitions fail over, with a warning', () => {
    const result = plan({ partitions: [{ ...workedExample, state: 'FAILED' }] })
    expect(result.partitions[0]?.action).toBe('stop')
    expect(result.gates.find((gate) => gate.name === 'partitions-failed')).toMatchObject({ ok: false, severity: 'warning' })
    expect(result.canProceed).toBe(true)
  })

  it('blocks while a selected partition has no state yet, and when nothing is left to stop', () => {
    const blocked = plan({ partitions: [workedExample, { ...workedExample, partition: 1, state: 'UNKNOWN' }] })
    expect(blocked.gates.find((gate) => gate.name === 'partitions-stoppable')).toMatchObject({ ok: false, severity: 'blocking' })
    expect(blocked.canProceed).toBe(false)
    const nothing = plan({ partitions: [] })
    expect(nothing.gates.find((gate) => gate.name === 'partitions-selected')).toMatchObject({ ok: false, detail: 'no partition selected' })
    expect(nothing.canProceed).toBe(false)
  })

  it('leaves STOPPED partitions alone and measures a running stop from its captured position', () => {
    const result = plan({
      partitions: [
        { ...workedExample, state: 'STOPPED', destinationLogEndOffset: 9, lastMirrorPosition: { epoch: 0, offset: 3 }, openTransactions: [] },
        { ...workedExample, partition: 1, state: 'STOPPING', destinationLogEndOffset: 5, lastMirrorPosition: { epoch: 0, offset: 3 } },
      ],
    })
    expect(result.partitions.map((partition) => [partition.action, partition.mirroredOffset, partition.recordsAtRisk])).toEqual([
      ['alreadyStopped', 3, 3],
      ['stopInProgress', 3, 3],
    ])
    expect(result.partitions[0]?.transactionsToAbort).toEqual([])
  })

  it('orders partitions by topic and partition and reports zero risk with zero time when caught up', () => {
    const result = plan({
      partitions: [
        { ...workedExample, topic: 'payments', partition: 0 },
        { ...workedExample, partition: 2, destinationLogEndOffset: 6 },
        workedExample,
      ],
    })
    expect(result.partitions.map((partition) => `${partition.topic}-${partition.partition}`)).toEqual(['orders-0', 'orders-2', 'payments-0'])
    expect(result.partitions[1]).toMatchObject({ recordsAtRisk: 0, timeAtRiskMs: 0 })
  })
})

describe('consumerGroupBehind', () => {
  it('is not behind at or ahead of its source position, nor when the source position is unknown', () => {
    expect(consumerGroupBehind({ groupId: 'g', destinationCommittedOffset: 4, sourceCommittedOffset: 4 }, 10)).toBeNull()
    expect(consumerGroupBehind({ groupId: 'g', destinationCommittedOffset: 4, sourceCommittedOffset: null }, 10)).toBeNull()
  })

  it('caps the resume position at the mirrored offset, as the offset sync does', () => {
    expect(consumerGroupBehind({ groupId: 'g', destinationCommittedOffset: 8, sourceCommittedOffset: 9 }, 3)).toEqual({
      groupId: 'g',
      committedOffset: 3,
      sourceCommittedOffset: 9,
      offsetsToReprocess: 0,
      offsetsNotMirrored: 6,
    })
  })
})
