import { describe, expect, it } from 'vitest'
import {
  FAILOVER_STEPS,
  WIZARD_TRANSITIONS,
  canGoNext,
  defaultFailoverType,
  failoverRequestOf,
  rpoAcceptance,
  initialWizardState,
  stepAfter,
  stepStatus,
  wizardReducer,
  type WizardEvent,
  type WizardState,
} from './wizard-states'

const mirror = 'dr'
const passing = [{ name: 'source-reachable', ok: true, severity: 'warning' as const }]
const lagging = [...passing, { name: 'lag-threshold', ok: false, severity: 'warning' as const }]

function run(events: WizardEvent[], from: WizardState = atTopics()): WizardState {
  return events.reduce(wizardReducer, from)
}

/** The wizard past its first step, with unplanned chosen. */
function atTopics(type: 'planned' | 'unplanned' = 'unplanned'): WizardState {
  return [{ type: 'typeChosen', failoverType: type } as const, { type: 'next', mirror } as const].reduce(wizardReducer, initialWizardState())
}

describe('the wizard transition table', () => {
  it('gives every step an entry and only names known steps', () => {
    expect(Object.keys(WIZARD_TRANSITIONS).sort()).toEqual([...FAILOVER_STEPS].sort())
    for (const targets of Object.values(WIZARD_TRANSITIONS)) for (const target of Object.values(targets)) expect(FAILOVER_STEPS).toContain(target)
  })

  it('stays where it is on an event the table does not allow', () => {
    expect(stepAfter('result', 'back')).toBe('result')
    expect(stepAfter('progress', 'back')).toBe('progress')
    const atProgress = initialWizardState('op-1')
    expect(run([{ type: 'back' }, { type: 'next', mirror }], atProgress)).toBe(atProgress)
  })
})

describe('wizardReducer', () => {
  it('starts by choosing the type, which it needs before going on, and clears forcing when the type changes', () => {
    const start = initialWizardState()
    expect(start).toMatchObject({ step: 'type', type: null })
    expect(run([{ type: 'next', mirror }], start).step).toBe('type')
    const planned = run([{ type: 'typeChosen', failoverType: 'planned' }], start)
    expect(run([{ type: 'next', mirror }], planned)).toMatchObject({ step: 'topics', type: 'planned' })
    const forced = { ...atTopics(), step: 'type' as const, forced: ['rpo-objective'] }
    expect(run([{ type: 'typeChosen', failoverType: 'planned' }], forced).forced).toEqual([])
    expect(run([{ type: 'typeChosen', failoverType: 'unplanned' }], forced).forced).toEqual(['rpo-objective'])
    expect(run([{ type: 'typeChosen', failoverType: 'planned' }], atTopics()).type).toBe('unplanned')
    expect(run([{ type: 'back' }], atTopics()).step).toBe('type')
  })

  it('walks type → topics → gates → impact → confirm → progress → result', () => {
    const confirm = run([
      { type: 'next', mirror },
      { type: 'next', mirror, gates: passing },
      { type: 'next', mirror },
      { type: 'confirmationTyped', text: mirror },
      { type: 'submitted', mirror },
    ])
    expect(confirm).toMatchObject({ step: 'confirm', submitting: true })
    const done = run([{ type: 'accepted', operationId: 'op-7' }, { type: 'finished' }], confirm)
    expect(done).toMatchObject({ step: 'result', operationId: 'op-7', submitting: false })
  })

  it('keeps a failing gate blocking until it is forced, and forgets forcing when the selection changes', () => {
    const atGates = run([{ type: 'next', mirror }])
    expect(run([{ type: 'next', mirror, gates: lagging }], atGates).step).toBe('gates')
    expect(run([{ type: 'next', mirror, gates: null }], atGates).step).toBe('gates')
    const forced = run([{ type: 'forceToggled', gate: 'lag-threshold', force: true }], atGates)
    expect(canGoNext(forced, { mirror, gates: lagging })).toBe(true)
    expect(run([{ type: 'next', mirror, gates: lagging }], forced).step).toBe('impact')
    const unforced = run([{ type: 'forceToggled', gate: 'lag-threshold', force: false }], forced)
    expect(unforced.forced).toEqual([])
    const back = run([{ type: 'back' }, { type: 'selectionChanged', selection: { mode: 'some', topics: ['orders'] } }], forced)
    expect(back).toMatchObject({ step: 'topics', forced: [] })
  })

  it('refuses to leave topics with nothing chosen', () => {
    const none = run([{ type: 'selectionChanged', selection: { mode: 'some', topics: [] } }, { type: 'next', mirror }])
    expect(none.step).toBe('topics')
  })

  it('never submits before the exact mirror name is typed, and never twice while in flight', () => {
    const atConfirm = run([{ type: 'next', mirror }, { type: 'next', mirror, gates: passing }, { type: 'next', mirror }])
    expect(run([{ type: 'confirmationTyped', text: 'DR' }, { type: 'submitted', mirror }], atConfirm).submitting).toBe(false)
    const once = run([{ type: 'confirmationTyped', text: mirror }, { type: 'submitted', mirror }], atConfirm)
    expect(run([{ type: 'submitted', mirror }], once)).toBe(once)
    expect(run([{ type: 'back' }], once)).toBe(once)
  })

  it('stays on confirm with the API error when the failover is refused', () => {
    const atConfirm = run([{ type: 'next', mirror }, { type: 'next', mirror, gates: passing }, { type: 'next', mirror }, { type: 'confirmationTyped', text: mirror }, { type: 'submitted', mirror }])
    const refused = run([{ type: 'refused', error: { code: 'INVALID_MIRROR_STATE', message: 'gate' } }], atConfirm)
    expect(refused).toMatchObject({ step: 'confirm', submitting: false, refusal: { code: 'INVALID_MIRROR_STATE' } })
    expect(run([{ type: 'confirmationTyped', text: mirror }], refused).refusal).toBeNull()
  })

  it('jumps to the progress of a running operation from any step before it', () => {
    for (const events of [[], [{ type: 'back' } as const], [{ type: 'next', mirror } as const], [{ type: 'next', mirror } as const, { type: 'next', mirror, gates: passing } as const]]) {
      expect(run([...events, { type: 'operationFound', operationId: 'op-9' }])).toMatchObject({ step: 'progress', operationId: 'op-9' })
    }
    expect(initialWizardState('op-3')).toMatchObject({ step: 'progress', operationId: 'op-3' })
  })
})

describe('helpers', () => {
  it('marks rail steps done, current or upcoming', () => {
    expect(FAILOVER_STEPS.map((step) => stepStatus(step, 'impact'))).toEqual(['done', 'done', 'done', 'current', 'upcoming', 'upcoming', 'upcoming'])
  })

  it('builds the request: topics only for a subset, always the forced list', () => {
    expect(failoverRequestOf(atTopics('planned'), mirror)).toEqual({ type: 'planned', confirm: mirror, force: [] })
    const some = { ...atTopics(), selection: { mode: 'some' as const, topics: ['a'] }, forced: ['lag-threshold'] }
    expect(failoverRequestOf(some, mirror)).toEqual({ type: 'unplanned', topics: ['a'], confirm: mirror, force: ['lag-threshold'] })
  })

  it('asks for the loss in words, and offers planned only when the source answers and the RPO holds', () => {
    expect(rpoAcceptance({ records: 5_332, seconds: 102.2 })).toBe('accept the loss of 5,332 records, 103 s')
    expect(rpoAcceptance({ records: 1, seconds: null })).toBe('accept the loss of 1 record, unknown time')
    expect(defaultFailoverType(undefined)).toBeNull()
    expect(defaultFailoverType({ gates: passing })).toBe('planned')
    expect(defaultFailoverType({ gates: passing, rpo: { status: 'breached' } })).toBe('unplanned')
    expect(defaultFailoverType({ gates: [{ name: 'source-reachable', ok: false, severity: 'warning' }] })).toBe('unplanned')
  })
})
