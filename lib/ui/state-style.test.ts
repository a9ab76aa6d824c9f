import { describe, expect, it } from 'vitest'
import { MIRROR_PARTITION_STATES } from '../mirror/states'
import { STATE_STYLE, STATES_BY_SEVERITY, worstState } from './state-style'

describe('state style', () => {
  it('gives every state a distinct glyph, so no state is told apart by colour alone', () => {
    const icons = MIRROR_PARTITION_STATES.map((state) => STATE_STYLE[state].icon)
    expect(new Set(icons).size).toBe(icons.length)
  })

  it('ranks FAILED worst and MIRRORING as the calmest', () => {
    expect(STATES_BY_SEVERITY[0]).toBe('FAILED')
    expect(STATES_BY_SEVERITY.at(-1)).toBe('MIRRORING')
  })

  it('picks the worst state with a count above zero', () => {
    expect(worstState({ MIRRORING: 12, PAUSED: 1, FAILED: 0 })).toBe('PAUSED')
    expect(worstState({ MIRRORING: 3, FAILED: 1 })).toBe('FAILED')
    expect(worstState({})).toBeNull()
  })
})
