import { describe, expect, it } from 'vitest'
import { buildFailoverPlan, consumerGroupBehind, type FailoverPartitionInput, type FailoverPreflightInput } from './failover-plan'

/**
 * The failover plan's gates in full (name, outcome, severity and the sentence the wizard shows), and the
 * per-partition figures in the situations the worked-example tests leave out: stops already running, stopped
 * and stateless partitions in one selection, a source that answers for some partitions only.
 */

const NOW = 1_764_400_010_000

const base: FailoverPartitionInput = {
  topic: 'orders',
  partition: 0,
  state: 'MIRRORING',
  destinationLogEndOffset: 3,
  source: { logEndOffset: 6, oldestUnmirroredTimestamp: NOW - 5000 },
  openTransactions: [
    { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
    { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
  ],
  consumerGroups: [],
}

function plan(partitions: FailoverPartitionInput[], overrides: Partial<FailoverPreflightInput> = {}) {
  return buildFailoverPlan({ mirror: 'dr', now: NOW, sourceReachable: true, partitions, ...overrides })
}

function partitionsOf(count: number, patch: Partial<FailoverPartitionInput>): FailoverPartitionInput[] {
  return Array.from({ length: count }, (_, partition) => ({ ...base, partition, ...patch }))
}

describe('failover plan gates', () => {
  it('names every gate with its severity and sentence for one lagging partition', () => {
    const result = plan([base])
    expect(result.gates).toEqual([
      { name: 'partitions-selected', ok: true, severity: 'blocking', detail: '1 of 1 partition(s) will be stopped' },
      { name: 'partitions-stoppable', ok: true, severity: 'blocking', detail: 'every selected partition has a state a stop can start from' },
      { name: 'source-reachable', ok: true, severity: 'warning', detail: 'the source cluster answers; records at risk are exact' },
      { name: 'lag-threshold', ok: false, severity: 'warning', detail: '3 record(s) at risk in orders-0' },
      { name: 'partitions-failed', ok: true, severity: 'warning', detail: 'no selected partition is FAILED' },
    ])
    expect(result.canProceed).toBe(true)
  })

  it('passes the lag gate with the threshold in its sentence when nothing is over it', () => {
    expect(plan([{ ...base, destinationLogEndOffset: 6 }]).gates[3]).toEqual({ name: 'lag-threshold', ok: true, severity: 'warning', detail: 'records at risk within 0 per partition' })
    expect(plan([base], { recordsAtRiskThreshold: 3 }).gates[3]).toMatchObject({ ok: true, detail: 'records at risk within 3 per partition' })
  })

  it('counts running stops as selected, and neither stopped nor stateless partitions', () => {
    const result = plan([
      { ...base, state: 'STOPPING', lastMirrorPosition: { epoch: 0, offset: 3 } },
      { ...base, partition: 1, state: 'STOPPED', lastMirrorPosition: { epoch: 0, offset: 3 } },
      { ...base, partition: 2, state: 'UNKNOWN' },
    ])
    expect(result.gates[0]).toEqual({ name: 'partitions-selected', ok: true, severity: 'blocking', detail: '1 of 3 partition(s) will be stopped' })
    expect(result.gates[1]).toEqual({ name: 'partitions-stoppable', ok: false, severity: 'blocking', detail: 'no mirror state yet for orders-2; wait for it or leave these topics out' })
    // Only the running stop is measured: the stopped partition's 3 and the stateless one's 3 do not count.
    expect(result.gates[3]).toMatchObject({ ok: false, detail: '3 record(s) at risk in orders-0' })
    expect(result.canProceed).toBe(false)
  })

  it('blocks when every selected partition is already stopped', () => {
    const result = plan([{ ...base, state: 'STOPPED', destinationLogEndOffset: 6 }])
    expect(result.gates[0]).toEqual({ name: 'partitions-selected', ok: false, severity: 'blocking', detail: 'every selected partition is already stopped or cannot be stopped' })
    expect(result.gates[3]).toMatchObject({ ok: true })
    expect(result.canProceed).toBe(false)
  })

  it('says the source is down, and that records at risk are unknown, with a count of the partitions', () => {
    const result = plan(partitionsOf(2, {}), { sourceReachable: false })
    expect(result.gates[2]).toEqual({
      name: 'source-reachable',
      ok: false,
      severity: 'warning',
      detail: 'the source cluster cannot be reached; records at risk are unknown and the failover keeps what was mirrored (the figures shown are lower bounds from the last successful fetch)',
    })
    expect(result.gates[3]).toEqual({ name: 'lag-threshold', ok: false, severity: 'warning', detail: 'records at risk unknown for 2 partition(s)' })
    expect(result.canProceed).toBe(true)
  })

  it('reports the known loss before the unknown one when the source answers for some partitions only', () => {
    const result = plan([base, { ...base, partition: 1, source: null }, { ...base, partition: 2, destinationLogEndOffset: 6 }])
    expect(result.gates[3]).toEqual({ name: 'lag-threshold', ok: false, severity: 'warning', detail: '3 record(s) at risk in orders-0' })
    expect(plan([{ ...base, source: null }, { ...base, partition: 1, destinationLogEndOffset: 6 }]).gates[3]).toMatchObject({ ok: false, detail: 'records at risk unknown for 1 partition(s)' })
  })

  it('lists at most five partitions in a sentence and counts the rest', () => {
    const seven = plan(partitionsOf(7, { state: 'FAILED' }))
    expect(seven.gates[4]).toEqual({
      name: 'partitions-failed',
      ok: false,
      severity: 'warning',
      detail: 'orders-0, orders-1, orders-2, orders-3, orders-4 and 2 more FAILED; they are stopped with what they mirrored before failing',
    })
    expect(seven.gates[3]).toMatchObject({ detail: '21 record(s) at risk in orders-0, orders-1, orders-2, orders-3, orders-4 and 2 more' })
    expect(plan(partitionsOf(5, { state: 'UNKNOWN' })).gates[1]).toMatchObject({ detail: 'no mirror state yet for orders-0, orders-1, orders-2, orders-3, orders-4; wait for it or leave these topics out' })
  })
})

describe('failover plan partitions', () => {
  it('aborts the open transactions of a running stop, in first-offset order, and none of a stopped or stateless partition', () => {
    const result = plan([
      { ...base, state: 'STOPPING', lastMirrorPosition: { epoch: 0, offset: 3 } },
      { ...base, partition: 1, state: 'STOPPED' },
      { ...base, partition: 2, state: 'UNKNOWN' },
    ])
    expect(result.partitions.map((partition) => partition.transactionsToAbort.map((transaction) => transaction.producerId))).toEqual([[4001, 4002], [], []])
  })

  it('measures a MIRRORING partition from its log end even when an earlier stop recorded a position', () => {
    const [partition] = plan([{ ...base, destinationLogEndOffset: 5, lastMirrorPosition: { epoch: 0, offset: 3 } }]).partitions
    expect(partition).toMatchObject({ mirroredOffset: 5, recordsAtRisk: 1 })
    // A stop without a captured position yet measures from the log end too.
    expect(plan([{ ...base, state: 'STOPPING', destinationLogEndOffset: 5, lastMirrorPosition: { epoch: -1, offset: -1 } }]).partitions[0]).toMatchObject({ mirroredOffset: 5 })
  })

  it('leaves the time at risk unknown when the oldest unmirrored record has no timestamp', () => {
    const [partition] = plan([{ ...base, source: { logEndOffset: 6, oldestUnmirroredTimestamp: null } }]).partitions
    expect(partition).toMatchObject({ recordsAtRisk: 3, timeAtRiskMs: null })
    // A timestamp from the future (clock skew) is no negative age.
    expect(plan([{ ...base, source: { logEndOffset: 6, oldestUnmirroredTimestamp: NOW + 10 } }]).partitions[0]).toMatchObject({ timeAtRiskMs: 0 })
  })

  it('orders partitions by topic name before partition number', () => {
    const result = plan([
      { ...base, topic: 'a', partition: 1 },
      { ...base, topic: 'b', partition: 0 },
      { ...base, topic: 'a', partition: 0 },
    ])
    expect(result.partitions.map((partition) => `${partition.topic}-${partition.partition}`)).toEqual(['a-0', 'a-1', 'b-0'])
    const reversed = plan([{ ...base, topic: 'a', partition: 1 }, { ...base, topic: 'b', partition: 0 }])
    expect(reversed.partitions.map((partition) => partition.topic)).toEqual(['a', 'b'])
  })

  it('lists the groups behind by group id whatever order they come in', () => {
    const groups = ['delta', 'alpha', 'charlie', 'bravo'].map((groupId) => ({ groupId, destinationCommittedOffset: 1, sourceCommittedOffset: 2 }))
    const [partition] = plan([{ ...base, consumerGroups: groups }]).partitions
    expect(partition?.consumerGroupsBehind.map((group) => group.groupId)).toEqual(['alpha', 'bravo', 'charlie', 'delta'])
  })
})

describe('consumerGroupBehind, edges', () => {
  it('a group with no position on either side is not listed', () => {
    expect(consumerGroupBehind({ groupId: 'g', destinationCommittedOffset: null, sourceCommittedOffset: null }, 10)).toBeNull()
  })

  it('a group with no destination commit is behind even at source offset 0 (it starts by its reset policy)', () => {
    expect(consumerGroupBehind({ groupId: 'g', destinationCommittedOffset: null, sourceCommittedOffset: 0 }, 10)).toEqual({
      groupId: 'g',
      committedOffset: null,
      sourceCommittedOffset: 0,
      offsetsToReprocess: null,
      offsetsNotMirrored: 0,
    })
  })
})
