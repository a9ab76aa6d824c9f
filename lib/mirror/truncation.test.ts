import { describe, expect, it } from 'vitest'
import { MirrorError } from './errors'
import {
  decideDivergingEpochTruncation,
  decideTruncation,
  endOffsetForEpoch,
  truncationPlan,
  type AlignmentTruncationInput,
} from './truncation'

const base: AlignmentTruncationInput = {
  lastMirrorPosition: { epoch: 0, offset: 3 },
  localEndOffsetForEpoch: { epoch: 0, offset: 6 },
  logStartOffset: 0,
  logEndOffset: 6,
  sourceLogStartOffset: 0,
}

describe('decideTruncation (PREPARING, KIP-1279 §3.4)', () => {
  it('#23 cuts the old source back to offset 3 in the worked example, removing its COMMIT marker and two records', () => {
    // A: 0–2 data of transactions 4001/4002 (epoch 0), 3 COMMIT, 4–5 data; B recorded (0, 3) when it stopped.
    const epochs = [{ epoch: 0, startOffset: 0 }]
    const decision = decideTruncation({ ...base, localEndOffsetForEpoch: endOffsetForEpoch(epochs, 0, 6) })
    expect(decision).toEqual({
      truncateTo: 3,
      fetchOffset: 3,
      recordsToRemove: 3,
      reason: 'failback',
      basis: 'lastMirrorOffset',
      truncationCompleted: true,
    })
  })

  it('#21 rebuilds from the source log start when there is no last mirror position', () => {
    for (const lastMirrorPosition of [null, { epoch: -1, offset: -1 }]) {
      expect(decideTruncation({ ...base, lastMirrorPosition, sourceLogStartOffset: 40 })).toEqual({
        truncateTo: null,
        fetchOffset: 40,
        recordsToRemove: 6,
        reason: 'fromScratch',
        basis: 'noLastMirrorPosition',
        truncationCompleted: true,
      })
    }
  })

  it('#22 removes everything when no local epoch is at or below the last mirror epoch', () => {
    const decision = decideTruncation({ ...base, lastMirrorPosition: { epoch: 2, offset: 50 }, localEndOffsetForEpoch: null, logStartOffset: 10, logEndOffset: 30 })
    expect(decision).toMatchObject({ truncateTo: null, fetchOffset: 0, recordsToRemove: 20, reason: 'failback', basis: 'noCommonEpoch' })
  })

  it('#22 truncates to the local end of epoch E when it comes before the last mirror offset', () => {
    // Local epochs: 2 at 0, 5 at 40. The source stopped at (3, 70): our epoch-5 data at 40+ is not shared.
    const local = endOffsetForEpoch(
      [
        { epoch: 2, startOffset: 0 },
        { epoch: 5, startOffset: 40 },
      ],
      3,
      90,
    )
    expect(local).toEqual({ epoch: 2, offset: 40 })
    const decision = decideTruncation({ ...base, lastMirrorPosition: { epoch: 3, offset: 70 }, localEndOffsetForEpoch: local, logEndOffset: 90 })
    expect(decision).toMatchObject({ truncateTo: 40, recordsToRemove: 50, basis: 'localEpochEndOffset' })
  })

  it('#22 removes nothing when the local log ends at or before the point', () => {
    const decision = decideTruncation({ ...base, lastMirrorPosition: { epoch: 0, offset: 9 }, localEndOffsetForEpoch: { epoch: 0, offset: 6 } })
    expect(decision).toMatchObject({ truncateTo: 6, fetchOffset: 6, recordsToRemove: 0, basis: 'logEndOffset' })
  })

  it('empties a log whose start is already past the point and restarts at the point', () => {
    const decision = decideTruncation({ ...base, lastMirrorPosition: { epoch: 0, offset: 3 }, logStartOffset: 5, logEndOffset: 9, localEndOffsetForEpoch: { epoch: 0, offset: 9 } })
    expect(decision).toMatchObject({ truncateTo: null, fetchOffset: 3, recordsToRemove: 4, basis: 'belowLogStartOffset' })
  })

  it('rejects inconsistent lookups and negative offsets', () => {
    expect(() => decideTruncation({ ...base, localEndOffsetForEpoch: { epoch: 4, offset: 6 } })).toThrow(MirrorError)
    expect(() => decideTruncation({ ...base, logEndOffset: -1 })).toThrow(MirrorError)
    expect(() => decideTruncation({ ...base, logStartOffset: 7 })).toThrow(/below logStartOffset/)
    expect(() => decideTruncation({ ...base, sourceLogStartOffset: 1.5 })).toThrow(MirrorError)
  })

  it('#22 never touches records below the point (property over many logs)', () => {
    for (let leo = 0; leo <= 12; leo++) {
      for (let offset = 0; offset <= 14; offset++) {
        for (let end = 0; end <= 14; end++) {
          const decision = decideTruncation({ ...base, logEndOffset: leo, lastMirrorPosition: { epoch: 1, offset }, localEndOffsetForEpoch: { epoch: 1, offset: end } })
          const point = Math.min(offset, end)
          expect(decision.truncateTo).toBe(Math.min(point, leo))
          expect(decision.recordsToRemove).toBe(Math.max(0, leo - point))
        }
      }
    }
  })
})

describe('decideDivergingEpochTruncation (ULE, KIP-320 rules)', () => {
  const input = { logStartOffset: 0, logEndOffset: 100 }

  it('#38 truncates to the smaller end offset when both sides have the diverging epoch', () => {
    expect(decideDivergingEpochTruncation({ ...input, divergingEpoch: { epoch: 4, offset: 90 }, localEndOffsetForEpoch: { epoch: 4, offset: 95 } })).toEqual({
      truncateTo: 90,
      fetchOffset: 90,
      recordsToRemove: 10,
      reason: 'uncleanLeaderElection',
      basis: 'divergingEpochEndOffset',
      truncationCompleted: true,
    })
    expect(decideDivergingEpochTruncation({ ...input, divergingEpoch: { epoch: 4, offset: 97 }, localEndOffsetForEpoch: { epoch: 4, offset: 95 } })).toMatchObject({ truncateTo: 95 })
  })

  it('truncates to our older epoch’s end and asks for another round when we lack the diverging epoch', () => {
    expect(decideDivergingEpochTruncation({ ...input, divergingEpoch: { epoch: 6, offset: 90 }, localEndOffsetForEpoch: { epoch: 4, offset: 70 } })).toMatchObject({
      truncateTo: 70,
      basis: 'localEpochBelowDivergingEpoch',
      truncationCompleted: false,
    })
  })

  it('truncates to the source end offset when we have no epoch at or below it', () => {
    expect(decideDivergingEpochTruncation({ ...input, divergingEpoch: { epoch: 2, offset: 30 }, localEndOffsetForEpoch: null })).toMatchObject({
      truncateTo: 30,
      basis: 'noCommonEpoch',
      truncationCompleted: true,
    })
  })

  it('truncates to the reported end offset when the source has no epoch at or below ours', () => {
    expect(decideDivergingEpochTruncation({ ...input, divergingEpoch: { epoch: -1, offset: 12 }, localEndOffsetForEpoch: null })).toMatchObject({
      truncateTo: 12,
      basis: 'divergingEpochUndefined',
    })
  })

  it('removes nothing when the divergence is at or past our log end, and everything when it is before our log start', () => {
    expect(decideDivergingEpochTruncation({ ...input, divergingEpoch: { epoch: 4, offset: 150 }, localEndOffsetForEpoch: { epoch: 4, offset: 100 } })).toMatchObject({
      truncateTo: 100,
      recordsToRemove: 0,
      basis: 'logEndOffset',
    })
    expect(decideDivergingEpochTruncation({ logStartOffset: 50, logEndOffset: 100, divergingEpoch: { epoch: 4, offset: 20 }, localEndOffsetForEpoch: { epoch: 4, offset: 60 } })).toMatchObject({
      truncateTo: null,
      fetchOffset: 20,
      recordsToRemove: 50,
      basis: 'belowLogStartOffset',
    })
  })

  it('rejects a lookup answering a higher epoch than asked', () => {
    expect(() => decideDivergingEpochTruncation({ ...input, divergingEpoch: { epoch: 3, offset: 20 }, localEndOffsetForEpoch: { epoch: 4, offset: 60 } })).toThrow(MirrorError)
  })
})

describe('endOffsetForEpoch (KIP-101 lookup)', () => {
  const entries = [
    { epoch: 1, startOffset: 0 },
    { epoch: 3, startOffset: 10 },
    { epoch: 7, startOffset: 25 },
  ]

  it('answers the log end offset for the latest epoch and the next start offset for older ones', () => {
    expect(endOffsetForEpoch(entries, 7, 40)).toEqual({ epoch: 7, offset: 40 })
    expect(endOffsetForEpoch(entries, 9, 40)).toEqual({ epoch: 7, offset: 40 })
    expect(endOffsetForEpoch(entries, 3, 40)).toEqual({ epoch: 3, offset: 25 })
    expect(endOffsetForEpoch(entries, 5, 40)).toEqual({ epoch: 3, offset: 25 })
  })

  it('answers null below the first epoch and for an empty cache', () => {
    expect(endOffsetForEpoch(entries, 0, 40)).toBeNull()
    expect(endOffsetForEpoch([], 3, 0)).toBeNull()
  })

  it('rejects entries whose epochs do not increase', () => {
    expect(() => endOffsetForEpoch([{ epoch: 3, startOffset: 0 }, { epoch: 3, startOffset: 5 }], 3, 9)).toThrow(MirrorError)
    expect(() => endOffsetForEpoch([{ epoch: 3, startOffset: 5 }, { epoch: 4, startOffset: 2 }], 3, 9)).toThrow(MirrorError)
  })
})

describe('truncationPlan (API.md)', () => {
  it('lists every partition by topic and partition with the API fields', () => {
    const plan = truncationPlan([
      { ...base, topic: 'payments', partition: 1 },
      { ...base, topic: 'orders', partition: 2, lastMirrorPosition: null, sourceLogStartOffset: 0 },
      { ...base, topic: 'orders', partition: 0 },
    ])
    expect(plan.map((entry) => `${entry.topic}-${entry.partition}`)).toEqual(['orders-0', 'orders-2', 'payments-1'])
    expect(plan[0]).toEqual({
      topic: 'orders',
      partition: 0,
      truncateTo: 3,
      recordsToRemove: 3,
      lastMirrorPosition: { epoch: 0, offset: 3 },
      fetchOffset: 3,
      reason: 'failback',
      basis: 'lastMirrorOffset',
    })
    expect(plan[1]).toMatchObject({ truncateTo: null, recordsToRemove: 6, lastMirrorPosition: null, reason: 'fromScratch' })
  })

  it('reports (−1, −1) as no last mirror position', () => {
    const [entry] = truncationPlan([{ ...base, topic: 't', partition: 0, lastMirrorPosition: { epoch: -1, offset: -1 } }])
    expect(entry?.lastMirrorPosition).toBeNull()
  })
})
