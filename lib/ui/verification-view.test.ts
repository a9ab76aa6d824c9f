import { describe, expect, it } from 'vitest'
import type { VerificationPartition } from '../api/verifications'
import { mismatchHref, mismatchesByOffset, partitionsWorstFirst, progressOf } from './verification-view'

const entry = (partition: number, status: VerificationPartition['status'], mismatches: VerificationPartition['mismatches'] = []): VerificationPartition => ({
  topic: 'orders',
  partition,
  fromOffset: 0,
  toOffset: 10,
  batches: 0,
  bytes: 0,
  mode: 'bytes',
  mismatches,
  mismatchCount: mismatches.length,
  status,
  verifiedTo: 10,
  identicalUpTo: 10,
  summary: '',
  error: null,
})

describe('a verification on screen', () => {
  it('lists mismatched partitions first, then those not compared', () => {
    expect(partitionsWorstFirst([entry(0, 'identical'), entry(1, 'failed'), entry(2, 'mismatched')]).map((p) => p.partition)).toEqual([2, 1, 0])
  })

  it('says how far it got, and where a mismatch is drawn on the tapes', () => {
    expect(progressOf({ totals: { partitions: 1, done: 0, identical: 0, mismatched: 0, failed: 0, mismatches: 0, batches: 0, bytes: 0, offsets: 200, verifiedOffsets: 50 } })).toBe(0.25)
    expect(mismatchHref('dr', 'v-1', { topic: 'orders', partition: 2 }, 41)).toBe('/mirrors/dr/partitions/orders/2?offset=41&verification=v-1')
    const byOffset = mismatchesByOffset(entry(0, 'mismatched', [{ offset: 40, kind: 'crc', detail: 'crc' }, { offset: 40, kind: 'bytes', detail: 'value' }, { offset: 41, kind: 'bytes', detail: 'key' }]))
    expect([...byOffset]).toEqual([[40, 'crc; value'], [41, 'key']])
  })
})
