import { describe, expect, it } from 'vitest'
import { MirrorError } from './errors'
import { decideDivergingEpochTruncation, decideTruncation, endOffsetForEpoch, truncationPlan, type TruncationPlanInput } from './truncation'

// The truncation decisions at their edges and their refusals, each named (found by mutation testing).

function expectMirrorError(action: () => unknown, code: MirrorError['code'], message: string) {
  let caught: unknown
  try {
    action()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(MirrorError)
  expect({ code: (caught as MirrorError).code, message: (caught as MirrorError).message }).toEqual({ code, message })
}

const failback = { logStartOffset: 0, logEndOffset: 20, sourceLogStartOffset: 0 }

describe('#22 decideTruncation', () => {
  it('names the last mirror offset as the basis when both ends agree', () => {
    expect(decideTruncation({ ...failback, lastMirrorPosition: { epoch: 3, offset: 8 }, localEndOffsetForEpoch: { epoch: 3, offset: 8 } })).toMatchObject({
      truncateTo: 8,
      basis: 'lastMirrorOffset',
      reason: 'failback',
    })
    expect(decideTruncation({ ...failback, lastMirrorPosition: { epoch: 3, offset: 9 }, localEndOffsetForEpoch: { epoch: 3, offset: 8 } })).toMatchObject({ truncateTo: 8, basis: 'localEpochEndOffset' })
  })

  it('refuses an epoch lookup that answered above the requested epoch, and bad offsets by name', () => {
    expectMirrorError(
      () => decideTruncation({ ...failback, lastMirrorPosition: { epoch: 3, offset: 8 }, localEndOffsetForEpoch: { epoch: 4, offset: 8 } }),
      'VALIDATION_FAILED',
      'endOffsetForEpoch(3) answered epoch 4, which is above the requested epoch',
    )
    expectMirrorError(() => decideTruncation({ ...failback, sourceLogStartOffset: -1, lastMirrorPosition: null, localEndOffsetForEpoch: null }), 'VALIDATION_FAILED', 'sourceLogStartOffset must be a non-negative integer, got -1')
    expectMirrorError(() => decideTruncation({ ...failback, logStartOffset: -1, lastMirrorPosition: null, localEndOffsetForEpoch: null }), 'VALIDATION_FAILED', 'logStartOffset must be a non-negative integer, got -1')
    expectMirrorError(() => decideTruncation({ ...failback, logEndOffset: -3, lastMirrorPosition: null, localEndOffsetForEpoch: null }), 'VALIDATION_FAILED', 'logEndOffset must be a non-negative integer, got -3')
    expectMirrorError(() => decideTruncation({ ...failback, logStartOffset: 5, logEndOffset: 4, lastMirrorPosition: null, localEndOffsetForEpoch: null }), 'VALIDATION_FAILED', 'logEndOffset 4 is below logStartOffset 5')
  })
})

describe('#38 decideDivergingEpochTruncation', () => {
  const log = { logStartOffset: 0, logEndOffset: 20 }

  it('an undefined diverging epoch (-1) truncates to its offset and is complete; epoch 0 is a real epoch', () => {
    expect(decideDivergingEpochTruncation({ ...log, divergingEpoch: { epoch: -1, offset: 6 }, localEndOffsetForEpoch: { epoch: 0, offset: 9 } })).toEqual({
      truncateTo: 6,
      fetchOffset: 6,
      recordsToRemove: 14,
      reason: 'uncleanLeaderElection',
      basis: 'divergingEpochUndefined',
      truncationCompleted: true,
    })
    expect(decideDivergingEpochTruncation({ ...log, divergingEpoch: { epoch: 0, offset: 6 }, localEndOffsetForEpoch: { epoch: 0, offset: 9 } })).toMatchObject({
      truncateTo: 6,
      basis: 'divergingEpochEndOffset',
      reason: 'uncleanLeaderElection',
    })
  })

  it('without a common epoch it truncates to the source end offset, complete', () => {
    expect(decideDivergingEpochTruncation({ ...log, divergingEpoch: { epoch: 2, offset: 7 }, localEndOffsetForEpoch: null })).toEqual({
      truncateTo: 7,
      fetchOffset: 7,
      recordsToRemove: 13,
      reason: 'uncleanLeaderElection',
      basis: 'noCommonEpoch',
      truncationCompleted: true,
    })
  })

  it('refuses a local answer above the diverging epoch and a negative offset, by name', () => {
    expectMirrorError(
      () => decideDivergingEpochTruncation({ ...log, divergingEpoch: { epoch: 2, offset: 7 }, localEndOffsetForEpoch: { epoch: 5, offset: 7 } }),
      'VALIDATION_FAILED',
      'endOffsetForEpoch(2) answered epoch 5, which is above the requested epoch',
    )
    expectMirrorError(() => decideDivergingEpochTruncation({ ...log, divergingEpoch: { epoch: 2, offset: -1 }, localEndOffsetForEpoch: null }), 'VALIDATION_FAILED', 'divergingEpoch.offset must be a non-negative integer, got -1')
  })
})

describe('truncationPlan', () => {
  it('orders entries by topic, then partition', () => {
    const input = (topic: string, partition: number): TruncationPlanInput => ({ topic, partition, ...failback, lastMirrorPosition: null, localEndOffsetForEpoch: null })
    const plan = truncationPlan([input('b', 1), input('a', 2), input('b', 0), input('a', 10), input('a', 1)])
    expect(plan.map(({ topic, partition }) => `${topic}-${partition}`)).toEqual(['a-1', 'a-2', 'a-10', 'b-0', 'b-1'])
  })
})

describe('endOffsetForEpoch', () => {
  it('allows two epochs starting at the same offset (an epoch with no batches) and refuses disorder by index', () => {
    expect(
      endOffsetForEpoch(
        [
          { epoch: 1, startOffset: 0 },
          { epoch: 2, startOffset: 5 },
          { epoch: 3, startOffset: 5 },
        ],
        2,
        9,
      ),
    ).toEqual({ epoch: 2, offset: 5 })
    expectMirrorError(
      () =>
        endOffsetForEpoch(
          [
            { epoch: 1, startOffset: 0 },
            { epoch: 2, startOffset: 5 },
            { epoch: 3, startOffset: 4 },
          ],
          2,
          9,
        ),
      'VALIDATION_FAILED',
      'leader epoch entries out of order at index 2',
    )
    expectMirrorError(() => endOffsetForEpoch([], 1, -1), 'VALIDATION_FAILED', 'logEndOffset must be a non-negative integer, got -1')
    expectMirrorError(() => endOffsetForEpoch([], 1, 1.5), 'VALIDATION_FAILED', 'logEndOffset must be a non-negative integer, got 1.5')
  })
})
