import { describe, expect, it } from 'vitest'
import { mirrorActionStates, type MirrorAction, type MirrorActionStates } from './mirror-actions'

function primaryOf(states: MirrorActionStates): MirrorAction[] {
  return (Object.keys(states) as MirrorAction[]).filter((action) => states[action].primary)
}

describe('mirrorActionStates', () => {
  it('a mirroring mirror: Pause first, Resume and Recover disabled with their reasons, Failback only after a failover', () => {
    const states = mirrorActionStates({ MIRRORING: 21 })
    expect(primaryOf(states)).toEqual(['pause'])
    expect(states.resume).toEqual({ enabled: false, reason: 'nothing is paused', primary: false })
    expect(states.recover.reason).toBe('no partition has FAILED')
    expect(states.failover.enabled).toBe(true)
    expect(states.failback.reason).toMatch(/follows a failover/)
  })

  it('FAILED partitions: Recover is the one primary action; a failover stays possible', () => {
    const states = mirrorActionStates({ FAILED: 21 })
    expect(primaryOf(states)).toEqual(['recover'])
    expect(states.failover.enabled).toBe(true)
    expect(states.resume.enabled).toBe(false)
  })

  it('paused: Resume first, Pause disabled as already paused', () => {
    const states = mirrorActionStates({ PAUSED: 3 })
    expect(primaryOf(states)).toEqual(['resume'])
    expect(states.pause.reason).toBe('already paused')
  })

  it('failed over: Failback first, Failover, Pause and Resume disabled', () => {
    const states = mirrorActionStates({ STOPPED: 21 })
    expect(primaryOf(states)).toEqual(['failback'])
    expect(states.failover.reason).toMatch(/already failed over/)
    expect(states.pause.enabled).toBe(false)
    expect(states.resume.enabled).toBe(false)
  })

  it('while a failover is stopping partitions there is no primary action, and no failback yet', () => {
    const states = mirrorActionStates({ STOPPING: 2, MIRRORING: 1 })
    expect(primaryOf(states)).toEqual([])
    expect(states.failback.reason).toMatch(/still stopping/)
  })

  it('an empty mirror disables everything with one reason', () => {
    const states = mirrorActionStates({})
    expect(Object.values(states).every((state) => !state.enabled && state.reason === 'the mirror has no partitions yet')).toBe(true)
  })
})
