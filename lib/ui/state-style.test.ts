import { describe, expect, it } from 'vitest'
import { MIRROR_PARTITION_STATES } from '../mirror/states'
import { STATE_STYLE, stateExplanation, STATES_BY_SEVERITY, votedKipName, worstState } from './state-style'

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

  it("shows the voted KIP's name beside ours only where they differ, in the state's explanation too", () => {
    expect(Object.fromEntries(MIRROR_PARTITION_STATES.map((state) => [state, votedKipName(state)]))).toEqual({
      UNKNOWN: null,
      PREPARING: 'LOG_ALIGNMENT',
      EPOCH_FENCING: null,
      ULE_LOG_TRUNCATION: 'ULE_RECOVERY',
      MIRRORING: null,
      PAUSING: null,
      PAUSED: null,
      STOPPING: null,
      STOPPED: null,
      FAILED: null,
    })
    expect(stateExplanation('PREPARING')).toMatch(/^Looking up the last mirror position.*\. KIP-1279 calls this state LOG_ALIGNMENT\.$/)
    expect(stateExplanation('ULE_LOG_TRUNCATION')).toMatch(/KIP-1279 calls this state ULE_RECOVERY\.$/)
    expect(stateExplanation('MIRRORING')).toBe('Fetching from the source and appending batches unchanged, at the same offsets.')
  })
})
