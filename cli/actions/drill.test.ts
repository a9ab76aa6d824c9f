import { describe, expect, it } from 'vitest'
import { isNewer } from './drill'

describe('following a drill: the stream never takes it back a phase', () => {
  it('takes a later or the same phase, and its end; not an earlier phase, nor anything once it ended', () => {
    expect(isNewer({ phase: 'checking', status: 'running' }, { phase: 'failingOver', status: 'running' })).toBe(false)
    expect(isNewer({ phase: 'checking', status: 'running' }, { phase: 'checking', status: 'running' })).toBe(true)
    expect(isNewer({ phase: 'copying', status: 'running' }, { phase: 'cleaningUp', status: 'running' })).toBe(true)
    // A drill that fails while copying ends in `done` with its own status: taken, whatever its phase.
    expect(isNewer({ phase: 'checking', status: 'running' }, { phase: 'copying', status: 'failed' })).toBe(true)
    expect(isNewer({ phase: 'done', status: 'succeeded' }, { phase: 'cleaningUp', status: 'running' })).toBe(false)
  })
})
