import { describe, expect, it } from 'vitest'
import { MirrorError } from './errors'
import {
  advanceStoppingProgress,
  isExpectedStoppingCompletion,
  isStoppingStep,
  planStoppingAction,
  type StoppingObservation,
  type StoppingProgress,
} from './stopping'

// Each step's decision on its own, at the edges the crash-resume paths reach (found by mutation testing).

const POSITION = { epoch: 4, offset: 10 }
const at = (step: StoppingProgress['step'], lastMirrorPosition: StoppingProgress['lastMirrorPosition'] = POSITION): StoppingProgress => ({ step, lastMirrorPosition })
const observed = (changes: Partial<StoppingObservation> = {}): StoppingObservation => ({
  latestEpoch: 4,
  logEndOffset: 10,
  leaderEpoch: 5,
  openTransactions: [],
  pidResetOffset: null,
  ...changes,
})
/** Runs `action` and checks the MirrorError's code and message (toThrow compares messages only). */
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

const open = [
  { producerId: 9, producerEpoch: 0, firstOffset: 7 },
  { producerId: 3, producerEpoch: 1, firstOffset: 2 },
]

describe('isStoppingStep', () => {
  it('accepts the six step names and nothing else', () => {
    for (const step of ['removeFetcher', 'persistPosition', 'bumpEpoch', 'abortTransactions', 'pidReset', 'done']) expect(isStoppingStep(step)).toBe(true)
    for (const value of ['', 'stopped', 'DONE', 3, null, undefined, ['done']]) expect(isStoppingStep(value)).toBe(false)
  })
})

describe('pidReset step (a resumed STOPPING)', () => {
  it('#24 raises the epoch first when it is not above the last mirror epoch, equal included', () => {
    for (const leaderEpoch of [3, 4]) {
      expect(planStoppingAction(at('pidReset'), observed({ leaderEpoch }))).toEqual({ step: 'pidReset', kind: 'bumpLeaderEpoch', minimumEpoch: 5, completesStep: false })
    }
    expect(planStoppingAction(at('pidReset'), observed({ leaderEpoch: 5 }))).toMatchObject({ kind: 'appendPidReset', leaderEpoch: 5 })
  })

  it('#26 aborts transactions still open before the reset, in first-offset order, without completing the step', () => {
    expect(planStoppingAction(at('pidReset'), observed({ openTransactions: open }))).toEqual({
      step: 'pidReset',
      kind: 'appendAbortMarkers',
      transactions: [open[1], open[0]],
      leaderEpoch: 5,
      completesStep: false,
    })
  })

  it('#27 skips a reset already written at or after the last mirrored offset, and writes one found only before it', () => {
    expect(planStoppingAction(at('pidReset'), observed({ pidResetOffset: 10 }))).toEqual({ step: 'pidReset', kind: 'skip', reason: 'pidResetAlreadyWritten', completesStep: true })
    expect(planStoppingAction(at('pidReset'), observed({ pidResetOffset: 12 }))).toMatchObject({ kind: 'skip' })
    expect(planStoppingAction(at('pidReset'), observed({ pidResetOffset: 9 }))).toEqual({ step: 'pidReset', kind: 'appendPidReset', leaderEpoch: 5, completesStep: true })
  })

  it('#27 an empty log stopped at (-1, -1) with no reset found still writes one', () => {
    expect(planStoppingAction(at('pidReset', { epoch: -1, offset: -1 }), observed({ leaderEpoch: 0, pidResetOffset: null }))).toMatchObject({ kind: 'appendPidReset' })
    expect(planStoppingAction(at('pidReset', { epoch: 0, offset: 0 }), observed({ leaderEpoch: 1, pidResetOffset: null }))).toMatchObject({ kind: 'appendPidReset' })
  })

  it('#26 abortTransactions hands over a sorted copy and leaves the observation untouched', () => {
    const transactions = [...open]
    const action = planStoppingAction(at('abortTransactions'), observed({ openTransactions: transactions }))
    expect(action).toMatchObject({ kind: 'appendAbortMarkers', transactions: [open[1], open[0]] })
    expect(transactions).toEqual(open)
  })

  it('done is complete and completes nothing', () => {
    expect(planStoppingAction(at('done'), observed())).toEqual({ step: 'done', kind: 'complete', completesStep: false })
  })
})

describe('completions', () => {
  it('refuses completions once done, or of another step, naming both steps', () => {
    expect(isExpectedStoppingCompletion(at('done'), { step: 'done' })).toBe(false)
    expect(isExpectedStoppingCompletion(at('bumpEpoch'), { step: 'pidReset' })).toBe(false)
    expect(isExpectedStoppingCompletion(at('bumpEpoch'), { step: 'bumpEpoch' })).toBe(true)
    expectMirrorError(() => advanceStoppingProgress(at('bumpEpoch'), { step: 'pidReset' }), 'INTERNAL', 'stopping step pidReset completed while waiting for bumpEpoch')
  })

  it('#29 keeps the persisted position: only persistPosition sets it, later steps never replace it', () => {
    expect(advanceStoppingProgress(at('persistPosition', null), { step: 'persistPosition', lastMirrorPosition: { epoch: 7, offset: 3 } })).toEqual({
      step: 'bumpEpoch',
      lastMirrorPosition: { epoch: 7, offset: 3 },
    })
    expect(advanceStoppingProgress(at('bumpEpoch'), { step: 'bumpEpoch', lastMirrorPosition: { epoch: 99, offset: 99 } })).toEqual({ step: 'abortTransactions', lastMirrorPosition: POSITION })
    expect(advanceStoppingProgress(at('pidReset'), { step: 'pidReset' })).toEqual({ step: 'done', lastMirrorPosition: POSITION })
  })

  it('#29 accepts (-1, -1) for an empty log and refuses half-defined positions', () => {
    const persist = (lastMirrorPosition: { epoch: number; offset: number } | undefined) => isExpectedStoppingCompletion(at('persistPosition', null), { step: 'persistPosition', lastMirrorPosition })
    expect(persist({ epoch: -1, offset: -1 })).toBe(true)
    expect(persist({ epoch: 0, offset: 0 })).toBe(true)
    expect(persist({ epoch: -1, offset: 0 })).toBe(false)
    expect(persist({ epoch: 0, offset: -1 })).toBe(false)
    expect(persist({ epoch: 1, offset: -1 })).toBe(false)
    expect(persist(undefined)).toBe(false)
  })
})

describe('observations are validated', () => {
  it('names the step reached without a persisted position', () => {
    expectMirrorError(() => planStoppingAction(at('bumpEpoch', null), observed()), 'INTERNAL', 'stopping step bumpEpoch reached without a persisted last mirror position')
  })

  it('refuses impossible observations with the field and value', () => {
    const refused = (changes: Partial<StoppingObservation>, message: string) =>
      expectMirrorError(() => planStoppingAction(at('bumpEpoch'), observed(changes)), 'VALIDATION_FAILED', message)
    refused({ latestEpoch: -2 }, 'latestEpoch must be -1 or a non-negative integer, got -2')
    refused({ logEndOffset: -1 }, 'logEndOffset must be a non-negative integer, got -1')
    refused({ leaderEpoch: -1 }, 'leaderEpoch must be a non-negative integer, got -1')
    refused({ leaderEpoch: 1.5 }, 'leaderEpoch must be a non-negative integer, got 1.5')
    refused({ pidResetOffset: -1 }, 'pidResetOffset must be null or a non-negative integer, got -1')
    refused({ pidResetOffset: 2.5 }, 'pidResetOffset must be null or a non-negative integer, got 2.5')
    expect(() => planStoppingAction(at('bumpEpoch'), observed({ leaderEpoch: 0, pidResetOffset: 0 }))).not.toThrow()
  })
})
