import { describe, expect, it } from 'vitest'
import { MirrorError } from './errors'

describe('MirrorError', () => {
  it('is named as such in logs and stack traces, with its code and cause', () => {
    const cause = new Error('root')
    const error = new MirrorError('VALIDATION_FAILED', 'bad offset', { cause })
    expect(error.name).toBe('MirrorError')
    expect(String(error)).toBe('MirrorError: bad offset')
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', cause })
  })
})
