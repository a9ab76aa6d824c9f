import { describe, expect, it } from 'vitest'
import type { AttentionResponse } from '@/lib/api/attention'
import { summarizeAttention, type AttentionItem } from './attention'
import { mergeAttention } from './attention-merge'

type Item = AttentionItem

function item(mirror: string, partition: number, kind: Item['kind'], since: number): Item {
  return { kind, mirror, topic: 't', partition, state: kind === 'paused' ? 'PAUSED' : 'FAILED', since, offsetLag: null, timeLagMs: null, lastFetchAt: null, error: null, retryAttempt: 0, lagGrowth: null, failureCode: null, nextRetryAt: null }
}

/** One instance's answer for the mirrors it runs, as attentionOf summarises them. */
function answer(items: Item[], limit: number, breaches: AttentionResponse['rpoBreaches'] = []): AttentionResponse {
  const { items: worst, totals, groups } = summarizeAttention(items, limit)
  return { items: worst, totals, groups: groups.map((group) => ({ ...group, examples: [...group.examples] })), rpoBreaches: breaches, staleAfterMs: 30_000, at: 1_000 }
}

describe('mergeAttention', () => {
  it('answers as one instance running every mirror would', () => {
    const here = [item('m1', 0, 'paused', 10), item('m1', 1, 'paused', 20)]
    const there = [item('m2', 0, 'failed', 30), item('m2', 1, 'failed', 40), item('m3', 0, 'paused', 5)]
    const limit = 2
    const merged = mergeAttention(answer(here, limit), [answer(there, limit)], limit)
    const whole = answer([...here, ...there], limit)
    expect(merged.items).toEqual(whole.items)
    expect(merged.totals).toEqual({ failed: 2, lagGrowing: 0, staleFetch: 0, paused: 3 })
    expect(merged.groups).toEqual(whole.groups)
  })

  it('keeps the first answer for a mirror two instances name (caught moving), and orders RPO breaches together', () => {
    const breach = (mirror: string, records: number) => ({ mirror, records, seconds: null, known: true, rpoRecords: 1, rpoSeconds: null })
    const merged = mergeAttention(answer([item('m1', 0, 'paused', 10)], 10, [breach('m1', 5)]), [answer([item('m1', 0, 'failed', 10), item('m2', 0, 'paused', 1)], 10, [breach('m1', 9), breach('m2', 50)])], 10)
    expect(merged.items.map(({ mirror, kind }) => [mirror, kind])).toEqual([
      ['m2', 'paused'],
      ['m1', 'paused'],
    ])
    expect(merged.totals.paused).toBe(2)
    expect(merged.totals.failed).toBe(0)
    expect(merged.rpoBreaches.map(({ mirror, records }) => [mirror, records])).toEqual([
      ['m2', 50],
      ['m1', 5],
    ])
  })
})
