import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_CONFIG } from './constants'
import { MirrorError } from './errors'
import type { MirrorEvent } from './events'
import { createMirrorPartition, withChanges, type MirrorPartitionValue } from './partition'
import {
  advanceStoppingProgress,
  captureLastMirrorPosition,
  INITIAL_STOPPING_PROGRESS,
  isExpectedStoppingCompletion,
  nextStoppingStep,
  planStoppingAction,
  STOPPING_STEPS,
  stepNeedsObservation,
  type StoppingAction,
  type StoppingObservation,
  type StoppingProgress,
} from './stopping'
import { transition, type TransitionContext } from './transition'
import type { OpenTransaction } from './types'

// A minimal destination partition: enough of a log and producer state to check what STOPPING appends.

type RecordType = 'DATA' | 'COMMIT' | 'ABORT' | 'MIRROR_PID_RESET'

interface LogRecord {
  readonly offset: number
  readonly type: RecordType
  readonly producerId: number | null
  readonly leaderEpoch: number
}

class FakePartition {
  records: LogRecord[]
  leaderEpoch: number
  fetcherRunning = true
  constructor(records: readonly Omit<LogRecord, 'offset'>[], leaderEpoch: number) {
    this.records = records.map((record, offset) => ({ ...record, offset }))
    this.leaderEpoch = leaderEpoch
  }

  get logEndOffset(): number {
    return this.records.length
  }

  append(type: RecordType, producerId: number | null): void {
    this.records.push({ offset: this.records.length, type, producerId, leaderEpoch: this.leaderEpoch })
  }

  openTransactions(): OpenTransaction[] {
    const open = new Map<number, OpenTransaction>()
    for (const record of this.records) {
      if (record.type === 'MIRROR_PID_RESET') open.clear()
      else if (record.producerId === null) continue
      else if (record.type === 'DATA' && !open.has(record.producerId)) {
        open.set(record.producerId, { producerId: record.producerId, producerEpoch: 0, firstOffset: record.offset })
      } else if (record.type === 'COMMIT' || record.type === 'ABORT') open.delete(record.producerId)
    }
    return [...open.values()]
  }

  observe(progress: StoppingProgress): StoppingObservation {
    const from = progress.lastMirrorPosition?.offset ?? 0
    const reset = this.records.find((record) => record.type === 'MIRROR_PID_RESET' && record.offset >= from)
    const dataEpochs = this.records.filter((record) => record.type !== 'MIRROR_PID_RESET').map((record) => record.leaderEpoch)
    return {
      latestEpoch: this.records.length === 0 ? -1 : Math.max(...dataEpochs),
      logEndOffset: this.logEndOffset,
      leaderEpoch: this.leaderEpoch,
      openTransactions: this.openTransactions(),
      pidResetOffset: reset?.offset ?? null,
    }
  }

  execute(action: StoppingAction): void {
    switch (action.kind) {
      case 'removeFetcher':
        this.fetcherRunning = false
        return
      case 'bumpLeaderEpoch':
        this.leaderEpoch = Math.max(this.leaderEpoch, action.minimumEpoch)
        return
      case 'appendAbortMarkers':
        for (const transaction of action.transactions) this.append('ABORT', transaction.producerId)
        return
      case 'appendPidReset':
        this.append('MIRROR_PID_RESET', null)
        return
      case 'persistPosition':
      case 'skip':
      case 'complete':
        return
    }
  }
}

/** The excerpt's destination at failover: 0–2 mirrored, transactions 4001 and 4002 open. */
function workedExampleDestination(leaderEpoch: number): FakePartition {
  return new FakePartition(
    [
      { type: 'DATA', producerId: 4001, leaderEpoch: 0 },
      { type: 'DATA', producerId: 4001, leaderEpoch: 0 },
      { type: 'DATA', producerId: 4002, leaderEpoch: 0 },
    ],
    leaderEpoch,
  )
}

/**
 * Runs the sequence as the engine does. `crashAfter` executes that many actions and then "crashes":
 * the last action's effect happened but its progress was not persisted; the loop restarts from the
 * persisted progress.
 */
function runSequence(destination: FakePartition, crashAfter: number | null = null): { progress: StoppingProgress; actions: StoppingAction[] } {
  let progress = INITIAL_STOPPING_PROGRESS
  const actions: StoppingAction[] = []
  let executed = 0
  for (let guard = 0; guard < 50; guard++) {
    const action = planStoppingAction(progress, destination.observe(progress))
    actions.push(action)
    if (action.kind === 'complete') return { progress, actions }
    destination.execute(action)
    executed++
    if (executed === crashAfter) continue
    if (action.completesStep) {
      progress = advanceStoppingProgress(
        progress,
        action.kind === 'persistPosition' ? { step: action.step, lastMirrorPosition: action.lastMirrorPosition } : { step: action.step },
      )
    }
  }
  throw new Error('stopping sequence did not finish')
}

function describeLog(destination: FakePartition): string[] {
  return destination.records.map((record) => `${record.offset} ${record.type} ${record.producerId ?? '-'} e${record.leaderEpoch}`)
}

const EXPECTED_LOG = ['0 DATA 4001 e0', '1 DATA 4001 e0', '2 DATA 4002 e0', '3 ABORT 4001 e1', '4 ABORT 4002 e1', '5 MIRROR_PID_RESET - e1']

describe('stopping steps', () => {
  it('lists the six STOPPING steps in order', () => {
    expect(STOPPING_STEPS).toEqual(['removeFetcher', 'persistPosition', 'bumpEpoch', 'abortTransactions', 'pidReset', 'done'])
  })

  it('advances one step at a time and ends after done', () => {
    expect(nextStoppingStep('removeFetcher')).toBe('persistPosition')
    expect(nextStoppingStep('pidReset')).toBe('done')
    expect(nextStoppingStep('done')).toBeNull()
  })
})

describe('the worked example (kip-1279-excerpt.txt)', () => {
  it('#24 #26 #27 appends ABORT 4001 at 3, ABORT 4002 at 4 and the reset record at 5, with the new epoch', () => {
    const destination = workedExampleDestination(0)
    const { progress, actions } = runSequence(destination)
    expect(describeLog(destination)).toEqual(EXPECTED_LOG)
    expect(actions.map((action) => `${action.step}:${action.kind}`)).toEqual([
      'removeFetcher:removeFetcher',
      'persistPosition:persistPosition',
      'bumpEpoch:bumpLeaderEpoch',
      'abortTransactions:appendAbortMarkers',
      'pidReset:appendPidReset',
      'done:complete',
    ])
    expect(destination.fetcherRunning).toBe(false)
    expect(destination.openTransactions()).toEqual([])
    expect(progress).toEqual({ step: 'done', lastMirrorPosition: { epoch: 0, offset: 3 } })
  })

  it('#29 records the position of the last mirrored data, not of the markers', () => {
    const destination = workedExampleDestination(0)
    const { progress } = runSequence(destination)
    expect(progress.lastMirrorPosition).toEqual({ epoch: 0, offset: 3 })
    expect(destination.logEndOffset).toBe(6)
  })

  it('#24 skips the bump when the leader epoch is already above the last mirror epoch', () => {
    const destination = workedExampleDestination(10)
    const { actions } = runSequence(destination)
    expect(actions.find((action) => action.step === 'bumpEpoch')).toMatchObject({ kind: 'skip', reason: 'leaderEpochAboveLastMirrorEpoch' })
    expect(describeLog(destination).slice(3)).toEqual(['3 ABORT 4001 e10', '4 ABORT 4002 e10', '5 MIRROR_PID_RESET - e10'])
  })

  it('#24 resumes after a crash at any step and ends with exactly the same log', () => {
    for (let crashAfter = 1; crashAfter <= 5; crashAfter++) {
      const destination = workedExampleDestination(0)
      runSequence(destination, crashAfter)
      expect(describeLog(destination), `crash after action ${crashAfter}`).toEqual(EXPECTED_LOG)
    }
  })

  it('#27 appends one reset record per stop even when no transaction is open', () => {
    const destination = new FakePartition(
      Array.from({ length: 50 }, () => ({ type: 'DATA' as const, producerId: 7, leaderEpoch: 2 })).map((record, index) =>
        index === 49 ? { ...record, type: 'COMMIT' as const } : record,
      ),
      20,
    )
    const { actions } = runSequence(destination)
    expect(actions.find((action) => action.step === 'abortTransactions')).toMatchObject({ kind: 'skip', reason: 'noOpenTransactions' })
    expect(destination.logEndOffset).toBe(51)
    expect(destination.records.filter((record) => record.type === 'MIRROR_PID_RESET')).toHaveLength(1)
  })
})

describe('planStoppingAction', () => {
  const position = { epoch: 4, offset: 10 }
  const observation: StoppingObservation = {
    latestEpoch: 4,
    logEndOffset: 10,
    leaderEpoch: 14,
    openTransactions: [
      { producerId: 9, producerEpoch: 1, firstOffset: 8 },
      { producerId: 3, producerEpoch: 0, firstOffset: 2 },
      { producerId: 1, producerEpoch: 0, firstOffset: 8 },
    ],
    pidResetOffset: null,
  }

  it('#26 orders ABORT markers by first offset, then producer id', () => {
    const action = planStoppingAction({ step: 'abortTransactions', lastMirrorPosition: position }, observation)
    expect(action).toMatchObject({ kind: 'appendAbortMarkers', leaderEpoch: 14, completesStep: true })
    expect(action.kind === 'appendAbortMarkers' && action.transactions.map((transaction) => transaction.producerId)).toEqual([3, 1, 9])
  })

  it('#26 bumps first when the leader epoch is not above the last mirror epoch, without completing the step', () => {
    const action = planStoppingAction({ step: 'abortTransactions', lastMirrorPosition: position }, { ...observation, leaderEpoch: 4 })
    expect(action).toEqual({ step: 'abortTransactions', kind: 'bumpLeaderEpoch', minimumEpoch: 5, completesStep: false })
  })

  it('#27 aborts still-open transactions before the reset record, without completing the step', () => {
    const action = planStoppingAction({ step: 'pidReset', lastMirrorPosition: position }, observation)
    expect(action).toMatchObject({ step: 'pidReset', kind: 'appendAbortMarkers', completesStep: false })
  })

  it('#27 does not count a reset record mirrored from the source before the position', () => {
    const clean = { ...observation, openTransactions: [] }
    expect(planStoppingAction({ step: 'pidReset', lastMirrorPosition: position }, { ...clean, pidResetOffset: 4 }).kind).toBe('appendPidReset')
    expect(planStoppingAction({ step: 'pidReset', lastMirrorPosition: position }, { ...clean, pidResetOffset: 11 }).kind).toBe('skip')
  })

  it('captures (−1, −1) for an empty log, and then needs no bump', () => {
    expect(captureLastMirrorPosition({ latestEpoch: -1, logEndOffset: 0 })).toEqual({ epoch: -1, offset: -1 })
    const empty = { latestEpoch: -1, logEndOffset: 0, leaderEpoch: 0, openTransactions: [], pidResetOffset: null }
    expect(planStoppingAction({ step: 'bumpEpoch', lastMirrorPosition: { epoch: -1, offset: -1 } }, empty).kind).toBe('skip')
  })

  it('throws INTERNAL when a later step is reached without a captured position', () => {
    expect(() => planStoppingAction({ step: 'bumpEpoch', lastMirrorPosition: null }, observation)).toThrow(MirrorError)
  })

  it('rejects malformed observations', () => {
    const capturing: StoppingProgress = { step: 'persistPosition', lastMirrorPosition: null }
    expect(() => planStoppingAction(capturing, { ...observation, logEndOffset: -3 })).toThrow(MirrorError)
    expect(() => planStoppingAction(capturing, { ...observation, latestEpoch: -2 })).toThrow(MirrorError)
  })

  it('plans removeFetcher and done without reading the log, and no other step', () => {
    expect(STOPPING_STEPS.filter((step) => !stepNeedsObservation(step))).toEqual(['removeFetcher', 'done'])
    expect(planStoppingAction(INITIAL_STOPPING_PROGRESS, null)).toEqual({ step: 'removeFetcher', kind: 'removeFetcher', completesStep: true })
    expect(planStoppingAction({ step: 'done', lastMirrorPosition: position }, null)).toEqual({ step: 'done', kind: 'complete', completesStep: false })
    for (const step of STOPPING_STEPS.filter(stepNeedsObservation)) {
      expect(() => planStoppingAction({ step, lastMirrorPosition: position }, null), step).toThrow(/without an observation/)
    }
  })

  it('accepts only the completion of the step it waits for', () => {
    const progress: StoppingProgress = { step: 'persistPosition', lastMirrorPosition: null }
    expect(isExpectedStoppingCompletion(progress, { step: 'bumpEpoch' })).toBe(false)
    expect(isExpectedStoppingCompletion(progress, { step: 'persistPosition' })).toBe(false)
    expect(isExpectedStoppingCompletion(progress, { step: 'persistPosition', lastMirrorPosition: { epoch: 1, offset: -5 } })).toBe(false)
    expect(isExpectedStoppingCompletion(progress, { step: 'persistPosition', lastMirrorPosition: { epoch: 1, offset: 5 } })).toBe(true)
    expect(() => advanceStoppingProgress(progress, { step: 'pidReset' })).toThrow(MirrorError)
  })
})

describe('STOPPING driven through transition()', () => {
  it('#24 #30 takes a MIRRORING partition to STOPPED, persisting each step, and makes it writable', () => {
    const ctx: TransitionContext = { now: 2000, retryConfig: DEFAULT_RETRY_CONFIG, random: () => 0, mirrorSupportUncleanLeaderElection: false }
    let partition: MirrorPartitionValue = withChanges(createMirrorPartition(0), { state: 'MIRRORING', stateEpoch: 3 })
    const destination = workedExampleDestination(0)
    const persisted: MirrorPartitionValue[] = []
    const dispatch = (event: MirrorEvent) => {
      const result = transition(partition, event, ctx)
      if (result.effects[0]?.kind === 'persistState') persisted.push(result.next)
      partition = result.next
      return result
    }
    expect(dispatch({ type: 'stopRequested' }).effects).toContainEqual({ kind: 'runStoppingSequence', then: 'stopCompleted' })
    for (;;) {
      if (partition.stopping === null) throw new Error('no stopping progress')
      const action = planStoppingAction(partition.stopping, destination.observe(partition.stopping))
      destination.execute(action)
      if (action.kind === 'complete') break
      if (!action.completesStep) continue
      const event: MirrorEvent =
        action.kind === 'persistPosition'
          ? { type: 'stoppingStepCompleted', step: action.step, lastMirrorPosition: action.lastMirrorPosition }
          : { type: 'stoppingStepCompleted', step: action.step }
      expect(dispatch(event).outcome).toBe('updated')
    }
    const stopped = dispatch({ type: 'stopCompleted' })
    expect(stopped.effects).toEqual([{ kind: 'persistState' }, { kind: 'clearReadOnly' }])
    expect(partition).toMatchObject({ state: 'STOPPED', stateEpoch: 5, lastMirrorPosition: { epoch: 0, offset: 3 } })
    expect(persisted.map((record) => record.stopping?.step)).toEqual([
      'removeFetcher',
      'persistPosition',
      'bumpEpoch',
      'abortTransactions',
      'pidReset',
      'done',
      'done',
    ])
    expect(describeLog(destination)).toEqual(EXPECTED_LOG)
  })
})
