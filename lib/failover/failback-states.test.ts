import { describe, expect, it } from 'vitest'
import { FAILBACK_STEPS, FAILBACK_TRANSITIONS, failbackReducer, initialFailbackState, type FailbackEvent, type FailbackState } from './failback-states'

const run = (events: FailbackEvent[], from: FailbackState = initialFailbackState('dr-failback', false)) => events.reduce(failbackReducer, from)

describe('the failback wizard machine', () => {
  it('names only known steps', () => {
    for (const targets of Object.values(FAILBACK_TRANSITIONS)) for (const target of Object.values(targets)) expect(FAILBACK_STEPS).toContain(target)
  })

  it('walks name → dry run → confirm → progress → done', () => {
    const state = run([
      { type: 'next' },
      { type: 'next', planReady: true },
      { type: 'confirmationTyped', text: 'us-east' },
      { type: 'submitted', expected: 'us-east' },
      { type: 'created' },
      { type: 'allMirroring' },
    ])
    expect(state.step).toBe('done')
  })

  it('refuses an invalid reverse mirror name, a dry run not yet answered, and a wrong typed name', () => {
    expect(run([{ type: 'nameTyped', name: 'bad name' }, { type: 'next' }]).step).toBe('name')
    expect(run([{ type: 'next' }, { type: 'next', planReady: false }]).step).toBe('plan')
    const atConfirm = run([{ type: 'next' }, { type: 'next', planReady: true }, { type: 'confirmationTyped', text: 'US-EAST' }])
    expect(run([{ type: 'submitted', expected: 'us-east' }], atConfirm).submitting).toBe(false)
  })

  it('sends one creation however often it is clicked, and stays on confirm when refused', () => {
    const sent = run([{ type: 'next' }, { type: 'next', planReady: true }, { type: 'confirmationTyped', text: 'us-east' }, { type: 'submitted', expected: 'us-east' }])
    expect(run([{ type: 'submitted', expected: 'us-east' }], sent)).toBe(sent)
    expect(run([{ type: 'refused', error: { code: 'CONFLICT', message: 'exists' } }], sent)).toMatchObject({ step: 'confirm', submitting: false, refusal: { code: 'CONFLICT' } })
  })

  it('opens at progress when the failback mirror already exists', () => {
    expect(initialFailbackState('back', true).step).toBe('progress')
    expect(run([{ type: 'reverseFound', name: 'back' }])).toMatchObject({ step: 'progress', reverseName: 'back' })
  })
})
