import { describe, expect, it } from 'vitest'
import { compareAttention, findAttention, lagGrowingSince, summarizeAttention, type AttentionLagPoint, type AttentionPartition } from './attention'

const NOW = 1_800_000_000_000
const thresholds = { staleAfterMs: 30_000, growingForMs: 60_000, stillRisingWithinMs: 20_000 }

function partition(overrides: Partial<AttentionPartition> & Pick<AttentionPartition, 'topic' | 'partition'>): AttentionPartition {
  return { state: 'MIRRORING', stateSince: NOW - 600_000, error: null, retryAttempt: 0, offsetLag: 0, timeLagMs: 0, lastFetchAt: NOW - 100, ...overrides }
}

/** One point every 5 s ending at NOW, with the given lags. */
function points(...lags: number[]): AttentionLagPoint[] {
  return lags.map((lag, index) => [NOW - (lags.length - 1 - index) * 5_000, lag, lag * 10])
}

describe('lagGrowingSince', () => {
  it('finds a lag that has not shrunk for over a minute and is still rising', () => {
    const rising = points(5, 6, 7, 7, 9, 10, 12, 13, 15, 16, 18, 20, 25, 30)
    expect(lagGrowingSince(rising, thresholds)).toEqual({ since: NOW - 65_000, growth: 25 })
  })

  it('starts the run after the last time the lag shrank', () => {
    const recovered = points(50, 40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
    expect(lagGrowingSince(recovered, thresholds)).toEqual({ since: NOW - 65_000, growth: 13 })
  })

  it('does not call a lag growing that rose for less than a minute', () => {
    expect(lagGrowingSince(points(0, 0, 0, 100, 0, 1, 2, 3, 4, 5, 6, 7, 8), thresholds)).toBeNull()
  })

  it('calls a lag that rose and then stayed flat steady, not growing', () => {
    expect(lagGrowingSince(points(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 10, 10, 10, 10), thresholds)).toBeNull()
  })

  it('needs at least two known points', () => {
    expect(lagGrowingSince([], thresholds)).toBeNull()
    expect(lagGrowingSince(points(3), thresholds)).toBeNull()
    expect(lagGrowingSince([[NOW - 70_000, null, null], [NOW, 5, 5]], thresholds)).toBeNull()
  })
})

describe('findAttention', () => {
  const growing = points(5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)

  it('reports FAILED, growing lag and stale fetches, one item per partition for its worst finding', () => {
    const partitions = [
      partition({ topic: 'orders', partition: 0, state: 'FAILED', stateSince: NOW - 5_000, error: 'fetch failed', retryAttempt: 2, offsetLag: null, lastFetchAt: NOW - 90_000 }),
      partition({ topic: 'orders', partition: 1, offsetLag: 18, lastFetchAt: NOW - 60_000 }),
      partition({ topic: 'orders', partition: 2, lastFetchAt: NOW - 45_000 }),
      partition({ topic: 'orders', partition: 3 }),
      partition({ topic: 'orders', partition: 4, state: 'PAUSED', lastFetchAt: NOW - 900_000 }),
      partition({ topic: 'orders', partition: 5, lastFetchAt: null, stateSince: NOW - 31_000 }),
    ]
    const items = findAttention('dr', partitions, (_topic, index) => (index === 1 ? growing : []), NOW, thresholds)
    expect(items.map((item) => [item.partition, item.kind])).toEqual([
      [0, 'failed'],
      [1, 'lagGrowing'],
      [2, 'staleFetch'],
      [4, 'paused'],
      [5, 'staleFetch'],
    ])
    expect(items[0]).toMatchObject({ mirror: 'dr', since: NOW - 5_000, error: 'fetch failed', retryAttempt: 2 })
    expect(items[1]).toMatchObject({ since: NOW - 65_000, lagGrowth: 13 })
    expect(items[3]).toMatchObject({ since: NOW - 600_000 })
    expect(items[4]).toMatchObject({ since: NOW - 31_000, lastFetchAt: null })
  })

  it('never asks for the history of a partition without lag', () => {
    const asked: string[] = []
    findAttention('dr', [partition({ topic: 't', partition: 0 }), partition({ topic: 't', partition: 1, offsetLag: 3 })], (topic, index) => {
      asked.push(`${topic}-${index}`)
      return []
    }, NOW, thresholds)
    expect(asked).toEqual(['t-1'])
  })
})

describe('ordering', () => {
  const base = { mirror: 'dr', topic: 't', state: 'MIRRORING' as const, offsetLag: 0, timeLagMs: 0, lastFetchAt: null, error: null, retryAttempt: 0, lagGrowth: null, failureCode: null, nextRetryAt: null }

  it('puts FAILED first (longest failing first), then growing lag by time lag, then stale by staleness, then paused', () => {
    const items = [
      { ...base, partition: 1, kind: 'staleFetch' as const, since: NOW - 40_000 },
      { ...base, partition: 2, kind: 'lagGrowing' as const, since: NOW - 70_000, timeLagMs: 2_000 },
      { ...base, partition: 3, kind: 'failed' as const, state: 'FAILED' as const, since: NOW - 1_000 },
      { ...base, partition: 4, kind: 'staleFetch' as const, since: NOW - 400_000 },
      { ...base, partition: 5, kind: 'lagGrowing' as const, since: NOW - 70_000, timeLagMs: 9_000 },
      { ...base, partition: 6, kind: 'failed' as const, state: 'FAILED' as const, since: NOW - 50_000 },
      { ...base, partition: 7, kind: 'paused' as const, state: 'PAUSED' as const, since: NOW - 900_000 },
    ]
    expect([...items].sort(compareAttention).map((item) => item.partition)).toEqual([6, 3, 5, 2, 4, 1, 7])
  })

  it('cuts the list at the limit but counts every finding', () => {
    const items = Array.from({ length: 7 }, (_, index) => ({ ...base, partition: index, kind: index < 2 ? ('failed' as const) : ('staleFetch' as const), since: NOW - index }))
    const summary = summarizeAttention(items, 3)
    expect(summary.items.map((item) => item.partition)).toEqual([1, 0, 6])
    expect(summary.totals).toEqual({ failed: 2, lagGrowing: 0, staleFetch: 5, paused: 0 })
  })

  it('groups every finding by mirror and cause: one line for 21 partitions whose source is unreachable', () => {
    const failed = (partition: number, lastFetchAt: number, nextRetryAt: number, retryAttempt: number) => ({
      ...base,
      partition,
      kind: 'failed' as const,
      state: 'FAILED' as const,
      since: NOW - 1_000,
      lastFetchAt,
      retryAttempt,
      nextRetryAt,
      failureCode: 'SOURCE_UNREACHABLE' as const,
      error: 'source unreachable: the link of us-east is cut',
    })
    const items = [
      ...Array.from({ length: 21 }, (_, partition) => failed(partition, NOW - 60_000 + partition, NOW + 5_000 + partition, 8 + (partition % 3))),
      { ...base, partition: 30, kind: 'failed' as const, state: 'FAILED' as const, since: NOW - 9_000, failureCode: 'LOG_DIVERGED' as const, retryAttempt: -1 },
      { ...base, partition: 40, kind: 'paused' as const, state: 'PAUSED' as const, since: NOW - 900_000 },
    ]
    const { groups } = summarizeAttention(items, 5)
    expect(groups.map((group) => [group.kind, group.label, group.partitions])).toEqual([
      ['failed', 'source unreachable', 21],
      ['failed', 'source log diverged', 1],
      ['paused', 'paused', 1],
    ])
    // Since the source last answered (retries that failed again do not move it), the soonest retry, the most attempts.
    expect(groups[0]).toMatchObject({ mirror: 'dr', cause: 'sourceUnreachable', since: NOW - 60_000, nextRetryAt: NOW + 5_000, retryAttempt: 10 })
    expect(groups[0]!.examples).toHaveLength(21)
    expect(groups[1]).toMatchObject({ cause: 'logDiverged', nextRetryAt: null, retryAttempt: -1 })
  })
})
