import { describe, expect, it } from 'vitest'
import type { MirrorPartitionState } from '../mirror/states'
import {
  NO_FILTER,
  comparePartitions,
  countByState,
  nextSort,
  partitionKey,
  selectPartitions,
  topicsOf,
  viewDependsOn,
  type PartitionFilter,
  type PartitionRow,
} from './partition-table'

function row(topic: string, partition: number, patch: Partial<PartitionRow> = {}): PartitionRow {
  return {
    topic,
    partition,
    state: 'MIRRORING',
    stateEpoch: 1,
    stateSince: 1_000,
    previousState: 'PREPARING',
    retryAttempt: 0,
    error: null,
    sourceHighWatermark: 10,
    destinationHighWatermark: 10,
    destinationLogEndOffset: 10,
    offsetLag: 0,
    timeLagMs: 0,
    lastFetchAt: 5_000,
    destinationLeaderEpoch: 1,
    lastMirrorPosition: null,
    lastTruncation: null,
    ...patch,
  }
}

const rows = [
  row('orders', 1, { offsetLag: 30, timeLagMs: 900, lastFetchAt: 4_000 }),
  row('orders', 0, { offsetLag: 5, timeLagMs: null }),
  row('clicks', 10, { state: 'FAILED', offsetLag: null, timeLagMs: null, error: 'KAFKA_STORAGE_ERROR disk full', lastFetchAt: null }),
  row('clicks', 2, { state: 'PAUSED', offsetLag: 7, destinationLeaderEpoch: 4, lastTruncation: { offset: 3, removedRecords: 3, at: 9_000, reason: 'failback' } }),
]

const names = (list: PartitionRow[]) => list.map((entry) => partitionKey(entry.topic, entry.partition))
const filter = (patch: Partial<PartitionFilter>): PartitionFilter => ({ ...NO_FILTER, ...patch })

describe('sorting', () => {
  it('orders by topic, then partition numerically (10 after 2)', () => {
    expect(names(selectPartitions(rows, NO_FILTER, { column: 'topic', direction: 'asc' }))).toEqual(['clicks/2', 'clicks/10', 'orders/0', 'orders/1'])
    expect(names(selectPartitions(rows, NO_FILTER, { column: 'topic', direction: 'desc' }))).toEqual(['orders/1', 'orders/0', 'clicks/10', 'clicks/2'])
  })

  it('puts unknown lag last in both directions: unknown is never the smallest lag', () => {
    expect(names(selectPartitions(rows, NO_FILTER, { column: 'offsetLag', direction: 'desc' }))).toEqual(['orders/1', 'clicks/2', 'orders/0', 'clicks/10'])
    expect(names(selectPartitions(rows, NO_FILTER, { column: 'offsetLag', direction: 'asc' }))).toEqual(['orders/0', 'clicks/2', 'orders/1', 'clicks/10'])
  })

  it('sorts states by severity, FAILED first when descending', () => {
    expect(names(selectPartitions(rows, NO_FILTER, { column: 'state', direction: 'desc' }))[0]).toBe('clicks/10')
    expect(names(selectPartitions(rows, NO_FILTER, { column: 'state', direction: 'desc' }))[1]).toBe('clicks/2')
  })

  it('sorts freshness as time since the last fetch: descending shows the stalest first, never-fetched last', () => {
    expect(names(selectPartitions(rows, NO_FILTER, { column: 'freshness', direction: 'desc' }))).toEqual(['orders/1', 'clicks/2', 'orders/0', 'clicks/10'])
  })

  it('breaks ties by topic and partition so the order is stable across ticks', () => {
    const sorted = [...rows].sort(comparePartitions({ column: 'destinationLeaderEpoch', direction: 'asc' }))
    expect(names(sorted)).toEqual(['clicks/10', 'orders/0', 'orders/1', 'clicks/2'])
  })

  it('flips the direction on a second click and starts figures descending', () => {
    expect(nextSort({ column: 'topic', direction: 'asc' }, 'topic')).toEqual({ column: 'topic', direction: 'desc' })
    expect(nextSort({ column: 'topic', direction: 'asc' }, 'offsetLag')).toEqual({ column: 'offsetLag', direction: 'desc' })
    expect(nextSort({ column: 'offsetLag', direction: 'desc' }, 'partition')).toEqual({ column: 'partition', direction: 'asc' })
  })
})

describe('filtering', () => {
  it('keeps the chosen states only', () => {
    expect(names(selectPartitions(rows, filter({ states: new Set<MirrorPartitionState>(['FAILED', 'PAUSED']) }), { column: 'topic', direction: 'asc' }))).toEqual(['clicks/2', 'clicks/10'])
  })

  it('keeps one topic', () => {
    expect(names(selectPartitions(rows, filter({ topic: 'orders' }), { column: 'topic', direction: 'asc' }))).toEqual(['orders/0', 'orders/1'])
  })

  it('keeps lag above a threshold and drops unknown lag', () => {
    expect(names(selectPartitions(rows, filter({ minOffsetLag: 0 }), { column: 'topic', direction: 'asc' }))).toEqual(['clicks/2', 'orders/0', 'orders/1'])
    expect(names(selectPartitions(rows, filter({ minOffsetLag: 10 }), { column: 'topic', direction: 'asc' }))).toEqual(['orders/1'])
  })

  it('matches every word of the text in name, state or error, in any case', () => {
    expect(names(selectPartitions(rows, filter({ text: 'orders-1' }), { column: 'topic', direction: 'asc' }))).toEqual(['orders/1'])
    expect(names(selectPartitions(rows, filter({ text: ' DISK  clicks ' }), { column: 'topic', direction: 'asc' }))).toEqual(['clicks/10'])
    expect(names(selectPartitions(rows, filter({ text: 'paused' }), { column: 'topic', direction: 'asc' }))).toEqual(['clicks/2'])
    expect(selectPartitions(rows, filter({ text: 'nothing-like-this' }), { column: 'topic', direction: 'asc' })).toEqual([])
  })

  it('counts states under the other filters, so a chip says what picking it would show', () => {
    const counts = countByState(rows, filter({ topic: 'clicks', states: new Set<MirrorPartitionState>(['MIRRORING']) }))
    expect(counts.FAILED).toBe(1)
    expect(counts.PAUSED).toBe(1)
    expect(counts.MIRRORING).toBe(0)
    expect(Object.keys(counts)).toHaveLength(10)
  })

  it('lists topics with their partition counts', () => {
    expect(topicsOf(rows)).toEqual([
      { topic: 'clicks', partitions: 2 },
      { topic: 'orders', partitions: 2 },
    ])
  })
})

describe('viewDependsOn', () => {
  it('says a lag tick cannot move rows sorted by name without a lag filter', () => {
    expect(viewDependsOn('lag', NO_FILTER, { column: 'topic', direction: 'asc' })).toBe(false)
    expect(viewDependsOn('state', NO_FILTER, { column: 'offsetLag', direction: 'desc' })).toBe(false)
  })

  it('says a change re-sorts when the view filters or sorts by what changed', () => {
    expect(viewDependsOn('lag', NO_FILTER, { column: 'offsetLag', direction: 'desc' })).toBe(true)
    expect(viewDependsOn('lag', filter({ minOffsetLag: 0 }), { column: 'topic', direction: 'asc' })).toBe(true)
    expect(viewDependsOn('state', filter({ states: new Set<MirrorPartitionState>(['PAUSED']) }), { column: 'topic', direction: 'asc' })).toBe(true)
    expect(viewDependsOn('state', filter({ text: 'paused' }), { column: 'topic', direction: 'asc' })).toBe(true)
    expect(viewDependsOn('state', NO_FILTER, { column: 'state', direction: 'desc' })).toBe(true)
  })
})
