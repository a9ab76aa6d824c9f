import { describe, expect, it } from 'vitest'
import { adoptStoredState } from './adoption'
import { createMirrorPartition, withChanges } from './partition'
import { EVENT_TABLE, MIRROR_PARTITION_STATES } from './states'

const held = withChanges(createMirrorPartition(0), { state: 'MIRRORING', stateEpoch: 4 })

describe('adoptStoredState: a fenced write takes the stored record as authoritative', () => {
  it('another state is a transition named storedStateAdopted, from what the engine held to what is stored', () => {
    const stored = withChanges(held, { state: 'PAUSED', stateEpoch: 6 })
    const result = adoptStoredState(held, stored)
    expect(result).toMatchObject({ outcome: 'transitioned', from: 'MIRRORING', to: 'PAUSED', next: stored })
    expect(result.outcome === 'transitioned' && result.reason).toMatch(/^storedStateAdopted: another writer's record at stateEpoch 6 \(this engine held MIRRORING at stateEpoch 4\)$/)
  })

  it('the same state at another stateEpoch replaces the value without a transition', () => {
    const stored = withChanges(held, { stateEpoch: 5 })
    expect(adoptStoredState(held, stored)).toEqual({ outcome: 'updated', next: stored })
  })

  it('the same state and stateEpoch changes nothing that matters, and still takes the stored details', () => {
    const stored = withChanges(held, { error: 'written under the same epoch' })
    expect(adoptStoredState(held, stored)).toEqual({ outcome: 'unchanged', next: stored })
  })

  it('is no rule of EVENT_TABLE: its target is data, not a valid transition the table could promise', () => {
    for (const state of MIRROR_PARTITION_STATES) expect(Object.keys(EVENT_TABLE[state])).not.toContain('storedStateAdopted')
  })
})
