import { describe, expect, it } from 'vitest'
import { ApiError } from './api/errors'
import { CodedError, isCodedError } from './coded-error'
import { StorageError } from './log/errors'
import { MirrorError } from './mirror/errors'

describe('CodedError', () => {
  it('is the base of every coded error, each keeping its own name and code', () => {
    const errors = [new StorageError('LOG_CLOSED', 'closed'), new MirrorError('INTERNAL', 'bug'), new ApiError('NOT_FOUND', 'gone')]
    expect(errors.every(isCodedError)).toBe(true)
    expect(errors.map((error) => [error.name, error.code])).toEqual([
      ['StorageError', 'LOG_CLOSED'],
      ['MirrorError', 'INTERNAL'],
      ['ApiError', 'NOT_FOUND'],
    ])
    expect(isCodedError(new Error('plain'))).toBe(false)
  })

  it('keeps the cause, and details only when given', () => {
    const cause = new Error('disk')
    const error = new CodedError('KAFKA_STORAGE_ERROR', 'write failed', { cause, details: { offset: 3 } })
    expect(error.cause).toBe(cause)
    expect(error.details).toEqual({ offset: 3 })
    expect(Object.hasOwn(new CodedError('X', 'no details'), 'details')).toBe(false)
    expect(Object.hasOwn(new CodedError('X', 'no cause'), 'cause')).toBe(false)
  })
})
