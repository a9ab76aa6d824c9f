import { describe, expect, it } from 'vitest'
import { FAILBACK_TRANSITIONS, FAILBACK_WIZARD } from '../failover/failback-states'
import { FAILOVER_WIZARD, WIZARD_TRANSITIONS } from '../failover/wizard-states'
import { CREATE_MIRROR_TRANSITIONS, CREATE_MIRROR_WIZARD } from './create-mirror-wizard'
import { followingStep, stepAfter, stepNumber, stepStatus, stepsThrough, takesEvent, type StepList, type StepTable } from './step-machine'

const list = { steps: ['pick', 'check', 'confirm'], titles: { pick: 'Pick', check: 'Check', confirm: 'Confirm' } } as const satisfies StepList<'pick' | 'check' | 'confirm'>
const table = { pick: { next: 'check' }, check: { next: 'confirm', back: 'pick' }, confirm: { back: 'check' } } as const satisfies StepTable<'pick' | 'check' | 'confirm', 'next' | 'back'>

describe('the step machine every wizard is made of', () => {
  it('moves only where the table says, and stays put on an event the step does not take', () => {
    expect(stepAfter<'pick' | 'check' | 'confirm', 'next' | 'back'>(table, 'pick', 'next')).toBe('check')
    expect(stepAfter<'pick' | 'check' | 'confirm', 'next' | 'back'>(table, 'pick', 'back')).toBe('pick')
    expect(takesEvent<'pick' | 'check' | 'confirm', 'next' | 'back'>(table, 'confirm', 'next')).toBe(false)
    expect(takesEvent<'pick' | 'check' | 'confirm', 'next' | 'back'>(table, 'confirm', 'back')).toBe(true)
  })

  it('numbers the steps from 1 and places each against the current one', () => {
    expect(list.steps.map((step) => stepNumber(list, step))).toEqual([1, 2, 3])
    expect(list.steps.map((step) => stepStatus(list, step, 'check'))).toEqual(['done', 'current', 'upcoming'])
    expect(followingStep(list, 'check')).toBe('confirm')
    expect(followingStep(list, 'confirm')).toBeUndefined()
    expect(stepsThrough(list, 'check')).toEqual(['pick', 'check'])
  })

  it.each([
    ['failover', FAILOVER_WIZARD, WIZARD_TRANSITIONS],
    ['failback', FAILBACK_WIZARD, FAILBACK_TRANSITIONS],
    ['create mirror', CREATE_MIRROR_WIZARD, CREATE_MIRROR_TRANSITIONS],
  ] as const)('the %s wizard titles every step and its table leads only to its own steps', (_name, wizard, transitions) => {
    const steps: readonly string[] = wizard.steps
    expect(Object.keys(wizard.titles).sort()).toEqual([...steps].sort())
    expect(Object.keys(transitions).sort()).toEqual([...steps].sort())
    for (const targets of Object.values(transitions)) for (const target of Object.values(targets)) expect(steps).toContain(target)
    for (const title of Object.values(wizard.titles)) expect(title).not.toBe('')
  })
})
